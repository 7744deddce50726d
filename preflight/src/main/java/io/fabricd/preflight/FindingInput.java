package io.fabricd.preflight;

import io.fabricd.model.finding.Severity;
import io.fabricd.model.finding.Subject;

/**
 * One finding a node's agent reported (the diagnose JSON finding).
 *
 * @param subject what it is about; {@link Subject#HOST} (or null) for the whole host
 */
public record FindingInput(String check, Severity severity, String summary, String remediation, Subject subject) {
    public FindingInput {
        if (check == null || severity == null) {
            throw new IllegalArgumentException("a finding needs a check name and a severity");
        }
        subject = subject == null ? Subject.HOST : subject;
    }
}
