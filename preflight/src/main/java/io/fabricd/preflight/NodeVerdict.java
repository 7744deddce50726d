package io.fabricd.preflight;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The gate's word on one node.
 *
 * @param reasons one line each: what is wrong and what to do (empty when it passes)
 * @param evidence what the verdict rests on, by name (see {@link Evidence})
 */
@JsonPropertyOrder({"node", "verdict", "reasons", "evidence"})
public record NodeVerdict(String node, Verdict verdict, List<String> reasons, Map<String, Object> evidence) {
    public NodeVerdict {
        reasons = List.copyOf(reasons);
        evidence = Collections.unmodifiableMap(new LinkedHashMap<>(evidence));
    }
}
