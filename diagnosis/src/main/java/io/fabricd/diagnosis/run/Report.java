package io.fabricd.diagnosis.run;

import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.NotJudged;
import io.fabricd.model.finding.Severity;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabricd.model.CollectorRun;
import io.fabricd.model.HostModel;
import java.util.List;

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

    /**
     * The text report ({@link ReportText}); ANSI colour only when asked (a TTY); info findings and
     * what could not be judged counted in one line each unless {@code verbose}.
     */
    public String toText(boolean colour, boolean verbose) {
        return ReportText.render(this, colour, verbose);
    }
}
