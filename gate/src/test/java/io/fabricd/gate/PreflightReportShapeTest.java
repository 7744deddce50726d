package io.fabricd.gate;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.model.finding.Severity;
import io.fabricd.model.finding.Subject;
import io.fabricd.model.topology.Placement;
import io.fabricd.model.topology.Topology;
import io.fabricd.preflight.FindingInput;
import io.fabricd.preflight.Gate;
import io.fabricd.preflight.LinkInput;
import io.fabricd.preflight.NodeInput;
import io.fabricd.preflight.Policy;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The bytes of {@code fabricd preflight --format json} for a set that gives every piece of evidence
 * a node or a link can carry and a fabric suspect (docs/preflight.md, "Output"): each key, its place, its number form and
 * whether it is absent or null, pinned in src/test/resources/preflight/report.json. Run with
 * {@code -Dgolden.update=true} to rewrite the file from what the gate writes now; review it with git diff.
 */
class PreflightReportShapeTest {
    private static final Path GOLDEN = Path.of("src/test/resources/preflight/report.json");
    private static final double US = 1e-6;
    private static final double MS = 1e-3;

    @Test
    void theReportKeepsItsShape() throws Exception {
        List<NodeInput> nodes = List.of(
                NodeInput.reachable("n1", List.of()),
                NodeInput.reachable("n2", List.of(new FindingInput("pfc_missing", Severity.CRITICAL, "no PFC", "enable PFC", Subject.port("mlx5_0", 1).withPriority(3)))),
                NodeInput.reachable("n3", List.of()),
                NodeInput.reachable("n4", List.of()),
                NodeInput.reachable("n5", List.of()),
                NodeInput.reachable("n6", List.of()),
                NodeInput.reachable("n7", List.of()),
                NodeInput.reachable("n8", List.of()),
                NodeInput.reachable("n9", List.of()),
                NodeInput.unreachable("n10", "connection refused"),
                new NodeInput("n11", NodeInput.State.STALE, "collected 10 min ago", List.of()));
        List<LinkInput> links = new ArrayList<>();
        // a ring n1..n9, UDP, each host holding its probes 10 us but n3 (5 ms, its 90th percentile unsaid)
        for (int i = 1; i <= 9; i++) {
            String a = "n" + i;
            String b = "n" + (i % 9 + 1);
            links.add(LinkInput.probes(a, b, "udp", 100, 0, 40 * US, b.equals("n3") ? 5 * MS : 10 * US, b.equals("n3") ? null : 20 * US));
            links.add(LinkInput.probes(b, a, "udp", 100, 0, 40 * US, a.equals("n3") ? 5 * MS : 10 * US, a.equals("n3") ? null : 20 * US));
        }
        // n5 lossy with three partners otherwise good: excluded for them
        for (String p : List.of("n1", "n7", "n8")) {
            links.add(LinkInput.probes("n5", p, "udp", 200, 40, 40 * US));
        }
        // n1<->n2 over RDMA too: a p50 per transport
        links.add(LinkInput.probes("n1", "n2", "rdma", 100, 0, 8 * US));
        links.add(LinkInput.probes("n2", "n1", "rdma", 100, 0, 9 * US));
        // n1<->n4 over UDP, and over a transport no link has enough probes of: no median to compare with
        links.add(LinkInput.probes("n1", "n4", "udp", 100, 0, 40 * US));
        links.add(LinkInput.probes("n1", "n4", "roce", 5, 0, 8 * US));
        // n7<->n9 lossy, both ends otherwise good: the link is bad
        links.add(LinkInput.probes("n7", "n9", "udp", 200, 40, 40 * US));
        // bandwidth: a rate against no known ceiling, a slow link, one not measured, one failed
        links.add(LinkInput.bandwidth("n6", "n7", null, 9e10, null, "no ceiling known"));
        links.add(LinkInput.bandwidth("n4", "n6", 0.5, 2e11, 4e11, null));
        links.add(LinkInput.bandwidth("n7", "n9", null, "not measured: 10.0.0.9:9530 answered 429: busy"));
        links.add(LinkInput.bandwidthFailed("n8", "n9", "the queue pairs did not connect"));
        // a pair tried that gave nothing, and one probed too little
        links.add(LinkInput.tried("n4", "n8", "cannot reach 10.0.0.8:9530: connection refused"));
        links.add(LinkInput.probes("n6", "n9", "udp", 4, 0, 40 * US));
        StringWriter out = new StringWriter();
        // where n1-n8 sit (n9 not placed: its pairs are left to the per-node localisation): n5's NIC or cable is the one suspect
        List<Placement> placed = new ArrayList<>();
        for (int i = 1; i <= 8; i++) {
            placed.add(new Placement("n" + i, List.of(i <= 3 ? "leaf-a" : i <= 6 ? "leaf-b" : "leaf-c", "spine-1"), null, Placement.Source.FILE));
        }
        new GateReport(Gate.decide(nodes, links, Policy.defaults(), Topology.of(placed)), Duration.ofMillis(2500), List.of(), 1)
                .json(new PrintWriter(out));
        String json = out.toString();
        if (Boolean.getBoolean("golden.update")) {
            Files.writeString(GOLDEN, json, StandardCharsets.UTF_8);
        }
        assertThat(json).isEqualTo(Files.readString(GOLDEN, StandardCharsets.UTF_8));
    }

    @Test
    void aFabricSuspectKeepsItsShape() throws Exception {
        // six nodes, three under each of two leaves; everything through leaf-2 loses 10 %
        List<String> names = List.of("m1", "m2", "m3", "m4", "m5", "m6");
        List<Placement> placed = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            placed.add(new Placement(names.get(i), List.of(i < 3 ? "leaf-1" : "leaf-2", "spine-1"), null, Placement.Source.SLURM));
        }
        List<LinkInput> links = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            for (int j = i + 1; j < names.size(); j++) {
                links.add(LinkInput.probes(names.get(i), names.get(j), "udp", 200, j >= 3 ? 20 : 0, 40 * US));
            }
        }
        StringWriter out = new StringWriter();
        new GateReport(Gate.decide(names.stream().map(n -> NodeInput.reachable(n, List.of())).toList(), links, Policy.defaults(),
                Topology.of(placed)), Duration.ofMillis(2500), List.of(), 1).json(new PrintWriter(out));
        assertThat(out.toString()).contains("""
                  "fabric" : {
                    "placed_pairs" : 15,
                    "unplaced_pairs" : 0,
                    "suspects" : [ {
                      "elements" : [ "switch:leaf-2" ],
                      "pairs" : 12,
                      "bad" : 12,
                      "bad_share" : 1.0,
                      "bad_pairs" : [ "m1<->m4", "m1<->m5", "m1<->m6", "m2<->m4", "m2<->m5", "m2<->m6", "m3<->m4", "m3<->m5", "m3<->m6", \
                "m4<->m5", "m4<->m6", "m5<->m6" ]
                    } ]
                  },
                """).contains("\"excluded\" : \"m[4-6]\"").contains("\"blame\" : \"fabric\"");
    }
}
