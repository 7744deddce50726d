package io.fabricd.agent.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.agent.Main;
import io.fabricd.gate.GateReport;
import io.fabricd.model.finding.Severity;
import io.fabricd.model.finding.Subject;
import io.fabricd.preflight.FindingInput;
import io.fabricd.preflight.Gate;
import io.fabricd.preflight.NodeInput;
import io.fabricd.preflight.Policy;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * A node excluded for the demo host's own findings: the JSON's reason has the finding's whole summary
 * and fix, and the exclude list's (which the Slurm prolog makes the node's drain reason) is at most
 * 200 characters, cut after a whole word.
 */
class DrainReasonTest {

    @Test
    void theJsonKeepsTheWholeReasonAndTheDrainReasonIsCutAtAWord() throws Exception {
        StringWriter out = new StringWriter();
        Main.execute(new String[] {"diagnose", "--demo", "--format", "json"}, new PrintWriter(out, true), new PrintWriter(new StringWriter()));
        List<FindingInput> findings = new ArrayList<>();
        String fix = null;
        for (JsonNode f : new ObjectMapper().readTree(out.toString()).get("findings")) {
            Severity s = Severity.valueOf(f.get("severity").asText().toUpperCase(Locale.ROOT));
            findings.add(new FindingInput(f.get("check").asText(), s, f.get("summary").asText(), f.get("remediation").asText(),
                    new ObjectMapper().treeToValue(f.get("subject"), Subject.class)));
            if (s == Severity.CRITICAL) {
                fix = f.get("remediation").asText();
            }
        }
        assertThat(fix).as("the demo's critical finding's fix").hasSizeGreaterThan(200);
        GateReport r = new GateReport(Gate.decide(List.of(NodeInput.reachable("gpu007", findings), NodeInput.reachable("gpu008", List.of())),
                List.of(), Policy.defaults()), Duration.ofSeconds(1), List.of(), 1);

        StringWriter json = new StringWriter();
        r.json(new PrintWriter(json));
        String whole = new ObjectMapper().readTree(json.toString()).at("/nodes/0/reasons/0").asText();
        assertThat(whole).startsWith("gpu007: critical finding pfc_missing on mlx5_7 port 1 netdev ens8f0np0 priority 3 (")
                .endsWith(": " + fix.replaceAll("\\.$", "") + ", then rerun");

        String[] line = r.excludedLines().strip().split("\t", -1);
        assertThat(line).hasSize(3);
        String drain = line[2];
        assertThat(drain).hasSizeLessThanOrEqualTo(200).endsWith("...");
        String kept = drain.substring(0, drain.length() - 3);
        assertThat(whole).startsWith(kept);
        // what follows the cut in the whole reason begins a new word
        assertThat(whole.substring(kept.length())).matches("^[,;:]? .*");
        assertThat(kept).matches(".*[A-Za-z0-9)`'\"]$");
    }
}
