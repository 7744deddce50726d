package io.fabricd.model.finding;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One thing wrong with a host (interfaces.md, {@code diagnose --format json}).
 *
 * @param subject whichever of device, port, netdev, priority, gpu, pci apply
 * @param evidence the values the check saw, so a human can confirm it: in the order the check put
 *     them where it gave an ordered map, else by name (a {@code Map.of}'s order changes from one
 *     run of the JVM to the next, and so would the JSON)
 */
@JsonPropertyOrder({"check", "severity", "subject", "summary", "evidence", "remediation"})
public record Finding(String check, Severity severity, Map<String, Object> subject, String summary,
                      Map<String, Object> evidence, String remediation) {
    public Finding {
        subject = Collections.unmodifiableMap(new TreeMap<>(subject));
        evidence = Collections.unmodifiableMap(evidence instanceof LinkedHashMap || evidence instanceof SortedMap
                ? new LinkedHashMap<>(evidence) : new LinkedHashMap<>(new TreeMap<>(evidence)));
    }
}
