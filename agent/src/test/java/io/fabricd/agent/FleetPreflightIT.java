package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.agent.fleet.FleetEmulator;
import io.fabricd.agent.fleet.FleetPlan;
import io.fabricd.testing.PrivateFiles;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fabricd preflight} over a hundred emulated agents in this JVM ({@link FleetEmulator}: each
 * node its agent's real HTTP server, routes and UDP responder on an address of its own), with faults
 * planted on five of them: a node whose host has a critical finding, one whose probe responder loses
 * 30 % of its answers on the way, one that is down, one whose agent never answers, and one more lossy
 * at the other end of the set. The gate's verdicts must be what was planted, node by node: the critical
 * and the lossy excluded for their own reasons (their finding; their bad links, their partners named
 * and passed), the down and the silent one unknown as unreachable, every other node passing; the
 * lossy nodes' links blamed on them, every other link passing.
 */
class FleetPreflightIT {
    private static final int NODES = 100;

    @Test
    void theGateFindsWhatWasPlantedInAHundredNodes(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), PreflightEndToEndTest.KEY + "\n");
        FleetPlan plan = FleetPlan.healthy("gpu", NODES, 32)
                .with("gpu0007", FleetPlan.CRITICAL, FleetPlan.NONE)
                .with("gpu0042", FleetPlan.HEALTHY, new FleetPlan.Fault.LossyUdp(0.3))
                .with("gpu0060", FleetPlan.HEALTHY, new FleetPlan.Fault.Down())
                .with("gpu0061", FleetPlan.HEALTHY, new FleetPlan.Fault.Silent())
                .with("gpu0097", FleetPlan.HEALTHY, new FleetPlan.Fault.LossyUdp(0.3));
        try (FleetEmulator fleet = FleetEmulator.start(plan, Requirements.repoRoot().resolve("collectors/src/test/fixtures"), key)) {
            Path nodes = fleet.writeNodes(tmp.resolve("nodes.txt"));
            long t0 = System.nanoTime();
            // a hundred agents sharing two cores are starved hosts by construction (PreflightFleetIT): the floor says so;
            // their round trips are the scheduler's too, stretched by chance: what was planted is loss and findings
            CliTest.Result r = CliTest.run("preflight", "--nodes", "@" + nodes, "--key-file", key.toString(), "--bandwidth", "none",
                    "--host-floor", "1s", "--latency-factor", "20", "--timeout", "60s", "--format", "json");
            double took = (System.nanoTime() - t0) / 1e9;
            String all = r.err() + r.out();
            assertThat(r.code()).as(all).isEqualTo(1);
            JsonNode j = new ObjectMapper().readTree(r.out());
            Map<String, JsonNode> byNode = new LinkedHashMap<>();
            j.get("nodes").forEach(n -> byNode.put(n.get("node").asText(), n));
            assertThat(byNode.keySet()).as(all).containsExactlyElementsOf(plan.nodes().stream().map(FleetPlan.Node::name).toList());
            List<String> excluded = new ArrayList<>();
            for (FleetPlan.Node planted : plan.nodes()) {
                JsonNode n = byNode.get(planted.name());
                String verdict = n.get("verdict").asText();
                String reasons = n.get("reasons").toString();
                if (planted.fixture().equals(FleetPlan.CRITICAL)) {
                    assertThat(verdict).as(n.toString()).isEqualTo("exclude");
                    assertThat(reasons).contains(planted.name() + ": critical finding pfc_missing");
                } else if (planted.fault() instanceof FleetPlan.Fault.LossyUdp) {
                    assertThat(verdict).as(n.toString()).isEqualTo("exclude");
                    assertThat(reasons).as(all).contains(planted.name() + ": bad links with");
                    List<String> partners = new ArrayList<>();
                    n.at("/evidence/bad_partners").forEach(p -> partners.add(p.asText()));
                    assertThat(partners).as(n.toString()).hasSizeGreaterThanOrEqualTo(2)
                            .allSatisfy(p -> assertThat(plan.node(p).fault()).isEqualTo(FleetPlan.NONE));
                } else if (planted.fault() instanceof FleetPlan.Fault.Down || planted.fault() instanceof FleetPlan.Fault.Silent) {
                    assertThat(verdict).as(n.toString()).isEqualTo("unknown");
                    assertThat(n.at("/evidence/state").asText()).as(n.toString()).isEqualTo("unreachable");
                } else {
                    assertThat(verdict).as(all).isEqualTo("pass");
                    continue;
                }
                excluded.add(planted.name());
            }
            assertThat(j.get("excluded").asText()).isEqualTo("gpu[0007,0042,0060-0061,0097]");
            assertThat(excluded).containsExactly("gpu0007", "gpu0042", "gpu0060", "gpu0061", "gpu0097");
            // a bad link is a lossy node's, and held against it alone
            for (JsonNode l : j.get("links")) {
                boolean lossy = List.of(l.get("a").asText(), l.get("b").asText()).stream()
                        .anyMatch(e -> plan.node(e).fault() instanceof FleetPlan.Fault.LossyUdp);
                if (!lossy) {
                    assertThat(l.get("verdict").asText()).as(l.toString()).isEqualTo("pass");
                } else if (!l.get("verdict").asText().equals("pass")) {
                    assertThat(l.get("reasons").toString()).as(l.toString()).contains("explained by");
                }
            }
            assertThat(r.err()).contains("state: " + (NODES - 2) + " of " + NODES + " agents answered");
            System.out.printf("preflight over %d emulated agents: %.1f s%n%s", NODES, took, r.err());
        }
    }
}
