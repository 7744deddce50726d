package io.fabricd.model.finding;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * One thing wrong with a host (interfaces.md, {@code diagnose --format json}).
 *
 * @param subject what it is about ({@link Subject#HOST}: the whole host)
 * @param evidence the values the check saw, so a human can confirm it, in the check's order
 */
@JsonPropertyOrder({"check", "severity", "subject", "summary", "evidence", "remediation"})
public record Finding(String check, Severity severity, Subject subject, String summary, Evidence evidence, String remediation) {
    public Finding {
        subject = subject == null ? Subject.HOST : subject;
        evidence = evidence == null ? Evidence.NONE : evidence;
    }

    public Finding(String check, Severity severity, Subject subject, String summary, Evidence.Builder evidence, String remediation) {
        this(check, severity, subject, summary, evidence.build(), remediation);
    }
}
