package io.fabricd.preflight;

import io.fabricd.model.finding.Severity;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One finding a node's agent reported (the diagnose JSON finding).
 *
 * @param subject what it is about, by part name ({@code device}, {@code port}, ...), empty for the whole host
 */
public record FindingInput(String check, Severity severity, String summary, String remediation, Map<String, String> subject) {
    public FindingInput {
        if (check == null || severity == null) {
            throw new IllegalArgumentException("a finding needs a check name and a severity");
        }
        subject = subject == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(subject));
    }
}
