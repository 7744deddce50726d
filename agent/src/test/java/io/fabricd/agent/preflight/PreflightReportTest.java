package io.fabricd.agent.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.model.finding.Severity;
import io.fabricd.preflight.FindingInput;
import io.fabricd.preflight.Gate;
import io.fabricd.preflight.LinkInput;
import io.fabricd.preflight.NodeInput;
import io.fabricd.preflight.Policy;
import io.fabricd.preflight.Verdicts;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What {@code fabricd preflight} writes: the exclude list says which nodes were judged bad and which
 * could not be judged, the JSON and the summary line tell them apart, and a link measured too little
 * is not a bad link.
 */
class PreflightReportTest {
    private static final double US = 1e-6;

    private static List<LinkInput> ring(List<String> names) {
        List<LinkInput> out = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            String a = names.get(i);
            String b = names.get((i + 1) % names.size());
            out.add(LinkInput.probes(a, b, "udp", 100, 0, 30 * US));
            out.add(LinkInput.probes(b, a, "udp", 100, 0, 30 * US));
        }
        return out;
    }

    private static String text(GateReport r) {
        StringWriter w = new StringWriter();
        r.text(new PrintWriter(w));
        return w.toString();
    }

    @Test
    void theExcludeListSaysExcludeOrUnknownPerNode() throws Exception {
        List<String> names = List.of("n1", "n2", "n3", "n4", "n5");
        List<NodeInput> nodes = new ArrayList<>();
        nodes.add(NodeInput.reachable("n1", List.of()));
        nodes.add(NodeInput.reachable("n2", List.of(new FindingInput("pfc_missing", Severity.CRITICAL, "no PFC\ton 3", "fix PFC", Map.of()))));
        nodes.add(NodeInput.unreachable("n3", "connection refused"));
        nodes.add(NodeInput.reachable("n4", List.of()));
        nodes.add(NodeInput.reachable("n5", List.of()));
        Verdicts v = Gate.decide(nodes, ring(List.of("n1", "n2", "n4", "n5")), Policy.defaults());
        GateReport r = new GateReport(v, Duration.ofMillis(1500));
        assertThat(r.excludedLines().lines()).containsExactly(
                "n2\texclude\tn2: critical finding pfc_missing (no PFC?on 3): fix PFC, then rerun",
                "n3\tunknown\tn3: agent unreachable (connection refused): check that fabricd runs there and its port is open, then rerun");
        assertThat(r.excludedLines().lines()).allSatisfy(l -> assertThat(l.split("\t", -1)).hasSize(3));
        assertThat(r.excluded()).isEqualTo("n[2-3]");
        assertThat(r.unknown()).isEqualTo("n3");
        assertThat(text(r)).contains("exclude: n[2-3] (2 of 5 nodes: 1 excluded, 1 unknown); 3 kept (1.5 s)");
        StringWriter json = new StringWriter();
        r.json(new PrintWriter(json));
        JsonNode j = new ObjectMapper().readTree(json.toString());
        assertThat(j.get("excluded").asText()).isEqualTo("n[2-3]");
        assertThat(j.get("unknown").asText()).isEqualTo("n3");
        assertThat(names).hasSize(j.get("nodes").size());

        // --unknown pass: the unknown node is kept, and the summary says so
        GateReport lenient = new GateReport(Gate.decide(nodes, ring(List.of("n1", "n2", "n4", "n5")),
                Policy.defaults().withUnknownPasses(true)), Duration.ofSeconds(1));
        assertThat(lenient.excludedLines()).isEqualTo("n2\texclude\tn2: critical finding pfc_missing (no PFC?on 3): fix PFC, then rerun\n");
        assertThat(text(lenient)).contains("exclude: n2 (1 of 5 nodes: 1 excluded, 0 unknown); 4 kept; 1 of them unknown, kept (--unknown pass)");
    }

    @Test
    void aLinkMeasuredTooLittleIsNoBadLink() {
        List<String> names = List.of("n1", "n2", "n3", "n4");
        List<LinkInput> links = new ArrayList<>(ring(names));
        links.add(LinkInput.probes("n1", "n3", "udp", 4, 0, 30 * US)); // 4 probes: unknown
        Verdicts v = Gate.decide(names.stream().map(n -> NodeInput.reachable(n, List.of())).toList(), links, Policy.defaults());
        GateReport r = new GateReport(v, Duration.ofSeconds(2));
        assertThat(r.verdict()).isEqualTo("pass");
        String t = text(r);
        assertThat(t).contains("n1<->n3", "unknown", "4 probes, fewer than 20").contains("pass: all 4 nodes kept, no link bad (5 measured)")
                .doesNotContain("links are bad");
        assertThat(r.excludedLines()).isEmpty();
    }
}
