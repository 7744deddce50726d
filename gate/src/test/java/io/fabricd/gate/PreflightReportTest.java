package io.fabricd.gate;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.model.finding.Severity;
import io.fabricd.model.finding.Subject;
import io.fabricd.preflight.FindingInput;
import io.fabricd.preflight.Gate;
import io.fabricd.preflight.Hostlist;
import io.fabricd.preflight.LinkInput;
import io.fabricd.preflight.NodeInput;
import io.fabricd.preflight.Policy;
import io.fabricd.preflight.Verdicts;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
        nodes.add(NodeInput.reachable("n2", List.of(new FindingInput("pfc_missing", Severity.CRITICAL, "no PFC\ton 3", "fix PFC", Subject.HOST))));
        nodes.add(NodeInput.unreachable("n3", "connection refused"));
        nodes.add(NodeInput.reachable("n4", List.of()));
        nodes.add(NodeInput.reachable("n5", List.of()));
        Verdicts v = Gate.decide(nodes, ring(List.of("n1", "n2", "n4", "n5")), Policy.defaults());
        GateReport r = new GateReport(v, Duration.ofMillis(1500), List.of(), 1);
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
                Policy.defaults().withUnknownPasses(true)), Duration.ofSeconds(1), List.of(), 1);
        assertThat(lenient.excludedLines()).isEqualTo("n2\texclude\tn2: critical finding pfc_missing (no PFC?on 3): fix PFC, then rerun\n");
        assertThat(text(lenient)).contains("exclude: n2 (1 of 5 nodes: 1 excluded, 0 unknown); 4 kept; 1 of them unknown, kept (--unknown pass)");
    }

    @Test
    void aLinkMeasuredTooLittleIsNoBadLink() {
        List<String> names = List.of("n1", "n2", "n3", "n4");
        List<LinkInput> links = new ArrayList<>(ring(names));
        links.add(LinkInput.probes("n1", "n3", "udp", 4, 0, 30 * US)); // 4 probes: unknown
        Verdicts v = Gate.decide(names.stream().map(n -> NodeInput.reachable(n, List.of())).toList(), links, Policy.defaults());
        GateReport r = new GateReport(v, Duration.ofSeconds(2), List.of(), 1);
        assertThat(r.verdict()).isEqualTo("pass");
        String t = text(r);
        assertThat(t).contains("n1<->n3", "unknown", "4 probes, fewer than 20").contains("pass: all 4 nodes kept, no link bad (5 measured)")
                .doesNotContain("links are bad");
        assertThat(r.excludedLines()).isEmpty();
    }

    /** A job on one node: its gate's lines say "1 node", "the node", never "1 nodes". */
    @Test
    void aGateOfOneNodeSaysSoInTheSingular() {
        StringWriter progress = new StringWriter();
        GateRun.Result run = new FakeFleet("gpu", 1, 0).run(Duration.ofSeconds(10), progress);
        assertThat(progress.toString()).startsWith("fabricd preflight: 1 node, 10.0 s budget: asking every agent").doesNotContain("1 nodes");
        String t = text(new GateReport(run.verdicts(), run.elapsed(), run.phases(), 1));
        assertThat(t).contains("pass: the node kept, no link bad (0 measured)").doesNotContain("1 nodes");
    }

    @Test
    void theJsonCarriesWhatEachPhaseDidAndTheExitCode() throws Exception {
        List<String> names = List.of("n1", "n2", "n3", "n4");
        Verdicts v = Gate.decide(names.stream().map(n -> NodeInput.reachable(n, List.of())).toList(), ring(names), Policy.defaults());
        List<GatePhase> phases = List.of(
                new GatePhase(GatePhase.Kind.STATE, GatePhase.Status.COMPLETE, 4, 4, 1, List.of(), "state: 4 of 4 agents answered", 0.4),
                new GatePhase(GatePhase.Kind.PROBE_ROUND, GatePhase.Status.COMPLETE, 4, 4, 2,
                        List.of("n1->n2: cannot reach 10.0.0.2:9530: no complete answer within 2000 ms"),
                        "probe round: 4 of 4 pairs measured (50 x 64 B each way), 2 attempts; 1 try gave no probes (...)", 3.2));
        StringWriter w = new StringWriter();
        new GateReport(v, Duration.ofMillis(3300), phases, 1).json(new PrintWriter(w));
        JsonNode j = new ObjectMapper().readTree(w.toString());
        assertThat(j.get("verdict").asText()).isEqualTo("pass");
        assertThat(j.get("exit_code").asInt()).isZero();
        assertThat(j.get("bad_links").isArray()).isTrue();
        assertThat(j.get("bad_links")).isEmpty();
        JsonNode round = j.get("phases").get(1);
        assertThat(round.get("phase").asText()).isEqualTo("probe_round");
        assertThat(round.get("status").asText()).isEqualTo("complete");
        assertThat(round.get("planned").asInt()).isEqualTo(4);
        assertThat(round.get("done").asInt()).isEqualTo(4);
        assertThat(round.get("attempts").asInt()).isEqualTo(2);
        assertThat(round.get("problems").get(0).asText()).startsWith("n1->n2: cannot reach");
        assertThat(round.get("summary").asText()).startsWith("probe round: 4 of 4 pairs measured");
        assertThat(round.get("elapsed_seconds").asDouble()).isEqualTo(3.2);
        assertThat(j.get("phases").get(0).get("phase").asText()).isEqualTo("state");
    }

    /**
     * Seeded random sets, findings, unreachable agents, links lossy, slow, short of samples and
     * failed on bandwidth, either --unknown, any --min-nodes: the exit code, the top-level verdict
     * and the lists always say the same thing.
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
        32, 33, 34, 35, 36, 37, 38, 39, 40})
    void theExitCodeTheVerdictAndTheListsAgree(long seed) throws Exception {
        Random rnd = new Random(seed);
        int n = 3 + rnd.nextInt(10);
        List<String> names = new ArrayList<>();
        List<NodeInput> nodes = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            String name = "n" + i;
            names.add(name);
            int kind = rnd.nextInt(10);
            nodes.add(kind == 0 ? NodeInput.unreachable(name, "connection refused")
                    : kind == 1 ? NodeInput.reachable(name, List.of(new FindingInput("pfc_missing", Severity.CRITICAL, "no PFC", "fix PFC",
                    Subject.HOST))) : NodeInput.reachable(name, List.of()));
        }
        List<LinkInput> links = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            for (int k = 1; k <= 1 + rnd.nextInt(2); k++) {
                String a = names.get(i);
                String b = names.get((i + k) % n);
                if (a.equals(b)) {
                    continue;
                }
                int kind = rnd.nextInt(12);
                links.add(switch (kind) {
                    case 0 -> LinkInput.probes(a, b, "udp", 100, 40, 30 * US);
                    case 1 -> LinkInput.probes(a, b, "udp", 100, 0, 900 * US);
                    case 2 -> LinkInput.probes(a, b, "udp", 5, 0, 30 * US);
                    case 3 -> LinkInput.tried(a, b, "cannot reach " + b + ": connection refused");
                    case 4 -> LinkInput.bandwidthFailed(a, b, "the queue pairs did not connect");
                    default -> LinkInput.probes(a, b, "udp", 100, 0, 30 * US);
                });
            }
        }
        boolean unknownPasses = rnd.nextBoolean();
        int minNodes = 1 + rnd.nextInt(n);
        Verdicts v = Gate.decide(nodes, links, Policy.defaults().withUnknownPasses(unknownPasses));
        GateReport r = new GateReport(v, Duration.ofSeconds(1), List.of(), minNodes);
        StringWriter w = new StringWriter();
        r.json(new PrintWriter(w));
        JsonNode j = new ObjectMapper().readTree(w.toString());
        String verdict = j.get("verdict").asText();
        int exit = j.get("exit_code").asInt();
        List<String> excluded = j.get("excluded").asText().isEmpty() ? List.of() : Hostlist.parse(j.get("excluded").asText());
        List<String> badLinks = new ArrayList<>();
        j.get("bad_links").forEach(x -> badLinks.add(x.asText()));
        String all = "seed " + seed + ": " + j;
        assertThat(exit).as(all).isEqualTo(r.outcome().exitCode());
        // the lists are the nodes' and links' own verdicts
        List<String> notKept = new ArrayList<>();
        j.get("nodes").forEach(x -> {
            String nv = x.get("verdict").asText();
            if (nv.equals("exclude") || nv.equals("unknown") && !unknownPasses) {
                notKept.add(x.get("node").asText());
            }
        });
        assertThat(excluded).as(all).containsExactlyElementsOf(notKept);
        List<String> bad = new ArrayList<>();
        j.get("links").forEach(x -> {
            if (x.get("verdict").asText().equals("exclude")) {
                bad.add(x.get("a").asText() + "<->" + x.get("b").asText());
            }
        });
        assertThat(badLinks).as(all).containsExactlyElementsOf(bad);
        assertThat(j.get("kept").asInt()).as(all).isEqualTo(n - excluded.size());
        // and the exit code, the verdict and the lists say one thing
        switch (exit) {
            case 0 -> {
                assertThat(verdict).as(all).isEqualTo("pass");
                assertThat(excluded).as(all).isEmpty();
                assertThat(badLinks).as(all).isEmpty();
            }
            case 1 -> {
                assertThat(verdict).as(all).isEqualTo("exclude");
                assertThat(excluded.size() + badLinks.size()).as(all + ": exit 1 names what it excludes").isPositive();
                assertThat(n - excluded.size()).as(all).isGreaterThanOrEqualTo(minNodes);
            }
            case 2 -> {
                assertThat(verdict).as(all).isEqualTo("exclude");
                assertThat(n - excluded.size()).as(all).isLessThan(minNodes);
            }
            default -> throw new AssertionError(all);
        }
    }
}
