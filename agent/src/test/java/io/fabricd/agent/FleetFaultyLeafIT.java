package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.agent.fleet.FleetEmulator;
import io.fabricd.agent.fleet.FleetPlan;
import io.fabricd.testing.PrivateFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A faulty leaf switch in a loopback fleet: 48 emulated agents ({@link FleetEmulator}), 8 to a leaf,
 * each answering the gate where it sits (its placement in its state answer, as an agent with a
 * topology does), and every node under leaf-003 behind a relay that loses 30 % of its probe answers:
 * what a leaf that drops on every port does to every pair through it. The gate must name leaf-003 (and
 * no other switch) from the pairs, exclude the nodes behind it by default, with a reason naming the
 * switch, pass every other node; with {@code --on-suspect-switch keep} keep them and still name the
 * leaf; and without any placement (no topology) blame the nodes one by one as before. The recording
 * rules' part (the same fault in a leaf x leaf matrix, and FabricSwitchSuspect) is the promtool suite's
 * (alerts/tests/fabric.test.yaml) and, on real agents' series scraped by Prometheus, FabricSwitchSuspectIT's.
 */
class FleetFaultyLeafIT {
    private static final String LEAF = "leaf-003";

    @Test
    void theGateNamesTheLeafEveryBadPairCrosses(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), PreflightEndToEndTest.KEY + "\n");
        FleetPlan plan = FleetPlan.healthy("gpu", 48, 8);
        List<String> behind = new ArrayList<>();
        for (FleetPlan.Node n : plan.nodes()) {
            if (LEAF.equals(n.placement().leaf())) {
                behind.add(n.name());
            }
        }
        for (String n : behind) {
            plan = plan.with(n, FleetPlan.HEALTHY, new FleetPlan.Fault.LossyUdp(0.3));
        }
        assertThat(behind).hasSize(8);
        try (FleetEmulator fleet = FleetEmulator.start(plan, Requirements.repoRoot().resolve("collectors/src/test/fixtures"), key)) {
            Path nodes = fleet.writeNodes(tmp.resolve("nodes.txt"));
            // agents sharing two cores: starved hosts and stretched round trips by construction (FleetPreflightIT)
            List<String> args = List.of("preflight", "--nodes", "@" + nodes, "--key-file", key.toString(), "--bandwidth", "none",
                    "--host-floor", "1s", "--latency-factor", "20", "--timeout", "60s", "--format", "json");

            CliTest.Result r = CliTest.run(args.toArray(String[]::new));
            String all = r.err() + r.out();
            assertThat(r.code()).as(all).isEqualTo(1);
            JsonNode j = new ObjectMapper().readTree(r.out());
            List<String> switches = suspectSwitches(j);
            assertThat(switches).as(all).containsExactly("switch:" + LEAF);
            for (JsonNode n : j.get("nodes")) {
                String node = n.get("node").asText();
                if (behind.contains(node)) {
                    assertThat(n.get("verdict").asText()).as(n.toString()).isEqualTo("exclude");
                    assertThat(n.get("reasons").toString()).as(n.toString()).contains(LEAF);
                } else {
                    assertThat(n.get("verdict").asText()).as(n.toString()).isEqualTo("pass");
                }
            }
            assertThat(j.get("excluded").asText()).isEqualTo("gpu[0017-0024]");

            // keep: the nodes stay, the leaf is still named, its links still bad (exit 1)
            List<String> keep = new ArrayList<>(args);
            keep.addAll(List.of("--on-suspect-switch", "keep"));
            CliTest.Result k = CliTest.run(keep.toArray(String[]::new));
            JsonNode jk = new ObjectMapper().readTree(k.out());
            assertThat(k.code()).as(k.err() + k.out()).isEqualTo(1);
            assertThat(suspectSwitches(jk)).as(k.out()).containsExactly("switch:" + LEAF);
            for (JsonNode n : jk.get("nodes")) {
                assertThat(n.get("verdict").asText()).as(n.toString()).isEqualTo("pass");
            }

            // the text report, as an operator reads it (docs/where-is-the-fault.md shows one)
            List<String> text = new ArrayList<>(args.subList(0, args.size() - 2));
            CliTest.Result t = CliTest.run(text.toArray(String[]::new));
            assertThat(t.code()).isEqualTo(1);
            assertThat(t.out()).contains("switch:" + LEAF, ": behind switch " + LEAF + ", which the set's bad links share");
            System.out.println("fabricd preflight over a faulty leaf, as text:\n" + t.out());

            // a site file that places the set elsewhere wins over the agents: leaf-003's nodes spread over two
            // leaves of the file, whose other halves are healthy, so no switch explains the bad pairs alone
            StringBuilder file = new StringBuilder();
            for (FleetPlan.Node n : plan.nodes()) {
                int i = Integer.parseInt(n.name().substring(3));
                file.append(n.name()).append(" leaf=file-leaf-").append(i % 2).append(" spine=file-spine\n");
            }
            Path topology = Files.writeString(tmp.resolve("topology.txt"), file.toString());
            List<String> given = new ArrayList<>(args);
            given.addAll(List.of("--topology", topology.toString()));
            CliTest.Result g = CliTest.run(given.toArray(String[]::new));
            JsonNode jg = new ObjectMapper().readTree(g.out());
            assertThat(g.code()).as(g.err() + g.out()).isEqualTo(1);
            assertThat(suspectSwitches(jg)).as(g.out()).isEmpty();
            assertThat(g.err()).contains("fabric: 48 of the set's 48 nodes placed (by the topology given)");
        }
    }

    /** The suspects of the report that name a switch (a tie's elements together). */
    private static List<String> suspectSwitches(JsonNode report) {
        List<String> out = new ArrayList<>();
        for (JsonNode s : report.at("/fabric/suspects")) {
            s.get("elements").forEach(e -> {
                if (e.asText().startsWith("switch:")) {
                    out.add(e.asText());
                }
            });
        }
        return out;
    }
}
