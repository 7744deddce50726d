package io.fabricd.diagnosis;

import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.NotJudged;
import io.fabricd.model.finding.Severity;
import io.fabricd.model.finding.Subject;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabricd.model.CollectorRun;
import io.fabricd.model.HostModel;
import java.util.List;
import java.util.Locale;

/**
 * The result of a diagnosis: findings of one collection, the checks that lacked a previous one, and
 * the subjects checks could not judge and why; as JSON or as a text report.
 */
public record Report(HostModel model, List<Finding> findings, List<String> checksWithoutHistory, List<NotJudged> notJudged) {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
            .setDefaultPropertyInclusion(JsonInclude.Include.ALWAYS);

    public Report {
        findings = List.copyOf(findings);
        checksWithoutHistory = List.copyOf(checksWithoutHistory);
        notJudged = List.copyOf(notJudged);
    }

    public boolean hasAtLeast(Severity s) {
        return findings.stream().anyMatch(f -> f.severity().atLeast(s));
    }

    /** interfaces.md's {@code diagnose --format json}. */
    public String toJson() {
        ObjectNode root = JSON.createObjectNode();
        root.put("host", model.hostname());
        root.put("collected_at", model.collectedAt().toString());
        root.set("findings", JSON.valueToTree(findings));
        ArrayNode cs = root.putArray("collectors");
        for (CollectorRun r : model.collectors()) {
            ObjectNode c = cs.addObject();
            c.put("name", r.name());
            c.put("ok", r.ok());
            c.put("duration_seconds", r.durationSeconds());
            ArrayNode errs = c.putArray("errors");
            r.errors().forEach(e -> errs.addObject().put("path", e.path()).put("error", e.error()));
        }
        root.set("checks_without_history", JSON.valueToTree(checksWithoutHistory));
        root.set("not_judged", JSON.valueToTree(notJudged));
        try {
            return JSON.writeValueAsString(root) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A readable report grouped by severity; ANSI colour only when asked (a TTY). */
    public String toText(boolean colour) {
        StringBuilder sb = new StringBuilder();
        sb.append("fabricd diagnose: ").append(model.hostname()).append(" at ").append(model.collectedAt()).append('\n');
        if (findings.isEmpty()) {
            sb.append(!notJudged.isEmpty() ? "\nNo findings in what could be judged (see \"Not judged\" below).\n"
                    : checksWithoutHistory.isEmpty() ? "\nNo findings.\n" : "\nNo findings: nothing wrong that one collection can show.\n");
        }
        for (Severity s : Severity.values()) {
            List<Finding> fs = findings.stream().filter(f -> f.severity() == s).toList();
            if (fs.isEmpty()) {
                continue;
            }
            String head = s.id().toUpperCase(Locale.ROOT) + " (" + fs.size() + ")";
            String code = s == Severity.CRITICAL ? "31" : s == Severity.WARNING ? "33" : "36";
            sb.append('\n').append(colour ? "\u001b[1;" + code + "m" + head + "\u001b[0m" : head).append('\n');
            for (Finding f : fs) {
                sb.append("  [").append(f.check()).append("] ").append(subject(f.subject())).append(": ").append(f.summary()).append('\n');
                f.evidence().entries().forEach(e -> sb.append("      ").append(e.name()).append(": ").append(e.value()).append('\n'));
                sb.append("    fix: ").append(f.remediation()).append('\n');
            }
        }
        List<String> skipped = checksWithoutHistory.stream().filter(id -> Diagnosis.CHECKS.stream()
                .anyMatch(c -> c.id().equals(id) && c.history() == Check.History.REQUIRED)).toList();
        List<String> partial = checksWithoutHistory.stream().filter(id -> !skipped.contains(id)).toList();
        if (!skipped.isEmpty()) {
            sb.append("\nNot run (they compare two collections; the running agent or --previous gives them one): ")
                    .append(String.join(", ", skipped)).append('\n');
        }
        if (!partial.isEmpty()) {
            sb.append("Judged on totals only, without rates: ").append(String.join(", ", partial)).append('\n');
        }
        if (!notJudged.isEmpty()) {
            sb.append("\nNot judged (").append(notJudged.size()).append("): no finding is built on what could not be read\n");
            for (NotJudged n : notJudged) {
                sb.append("  [").append(n.check()).append("] ").append(subject(n.subject())).append(": ").append(n.reason().id())
                        .append(": ").append(n.detail()).append('\n');
            }
        }
        long errors = model.collectors().stream().mapToLong(c -> c.errors().size()).sum();
        if (errors > 0) {
            sb.append("\n").append(errors).append(" paths could not be read (see --format json, collectors[].errors)\n");
        }
        return sb.toString();
    }

    private static String subject(Subject s) {
        if (s.isHost()) {
            return "host";
        }
        StringBuilder sb = new StringBuilder();
        s.parts().forEach((k, v) -> sb.append(sb.length() == 0 ? "" : " ").append(k).append('=').append(v));
        return sb.toString();
    }
}
