package io.fabricd.gate;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.gate.wire.PreflightWire;
import io.fabricd.model.topology.Placement;
import io.fabricd.model.topology.Topology;
import io.fabricd.preflight.FabricSuspect;
import io.fabricd.preflight.LinkVerdict;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The topology a preflight run judges the fabric by: handed to the gate (a site's file) and completed
 * by where the agents say their nodes sit, in a run over agents answered from memory.
 */
class FleetTopologyTest {
    private static Placement at(String node, String leaf) {
        return new Placement(node, List.of(leaf, "spine-1"), null, Placement.Source.FILE);
    }

    @Test
    void theAgentsPlaceTheNodesTheTopologyGivenDoesNotAndTheGivenOneWins() {
        Topology given = Topology.of(List.of(at("a", "leaf-1")));
        FleetTopology t = FleetTopology.of(given, List.of(new Placement("a", List.of("leaf-9", "spine-1"), null, Placement.Source.LLDP),
                new Placement("b", List.of("leaf-2", "spine-1"), null, Placement.Source.LLDP)), List.of("a", "b"));
        assertThat(t.topology().placement("a").orElseThrow().leaf()).isEqualTo("leaf-1");
        assertThat(t.topology().placement("b").orElseThrow().leaf()).isEqualTo("leaf-2");
        assertThat(t.line()).isEqualTo("fabric: 2 of the set's 2 nodes placed (1 by the topology given, 1 by their agents)");
        assertThat(FleetTopology.of(Topology.EMPTY, List.of(), List.of("a")).line()).isNull();
        assertThat(FleetTopology.of(given, List.of(), List.of("a")).line()).isEqualTo("fabric: 1 of the set's 1 node placed (by the topology given)");
    }

    @Test
    void theLineCountsTheSetsNodesAndNamesThoseNotPlaced() {
        // a file naming gpu001..gpu004 and a set of gpu01..gpu04: none of the set is placed
        Topology given = Topology.of(List.of(at("gpu001", "leaf-1"), at("gpu002", "leaf-1"), at("gpu003", "leaf-2"), at("gpu004", "leaf-2")));
        FleetTopology t = FleetTopology.of(given, List.of(), List.of("gpu01", "gpu02", "gpu03", "gpu04"));
        assertThat(t.line()).isEqualTo("fabric: 0 of the set's 4 nodes placed; not placed: gpu01, gpu02, gpu03, gpu04: check the names in the"
                + " topology given");
        assertThat(FleetTopology.of(given, List.of(), List.of("gpu001", "gpu002", "gpu05")).line()).isEqualTo("fabric: 2 of the set's 3 nodes"
                + " placed (by the topology given); not placed: gpu05: check the names in the topology given");
        assertThat(FleetTopology.of(Topology.EMPTY, List.of(at("a", "leaf-1")), List.of("a", "b")).line()).isEqualTo("fabric: 1 of the set's"
                + " 2 nodes placed (by their agents); not placed: b: their agents know no placement");
    }

    @Test
    void onlyTheAgentsWhosePlacementsDisagreeAreLeftOutAndTheLineNamesThem() {
        Topology given = Topology.of(List.of(at("a", "leaf-1")));
        // b says leaf-1 is under spine-2: a switch under two switches; c and d agree with the rest
        FleetTopology t = FleetTopology.of(given, List.of(new Placement("b", List.of("leaf-1", "spine-2"), null, Placement.Source.LLDP),
                at("c", "leaf-2"), at("d", "leaf-2")), List.of("a", "b", "c", "d"));
        assertThat(t.topology().placement("b")).isEmpty();
        assertThat(t.topology().placement("c").orElseThrow().leaf()).isEqualTo("leaf-2");
        assertThat(t.topology().placement("a").orElseThrow().switches()).containsExactly("leaf-1", "spine-1");
        assertThat(t.line()).startsWith("fabric: 3 of the set's 4 nodes placed (1 by the topology given, 2 by their agents); the placements of"
                + " 1 agent (b) are not used, as they disagree with the topology given or the others': switch leaf-1 is under spine-1 (node a)"
                + " and under spine-2 (node b)");
        // agents that disagree among themselves: the switches most of them name win
        FleetTopology many = FleetTopology.of(Topology.EMPTY, List.of(new Placement("x", List.of("leaf-3", "spine-2"), null,
                Placement.Source.LLDP), at("c1", "leaf-3"), at("c2", "leaf-3"), at("c3", "leaf-3")), List.of("x", "c1", "c2", "c3"));
        assertThat(many.topology().placements()).extracting(Placement::node).containsExactlyInAnyOrder("c1", "c2", "c3");
        assertThat(many.line()).startsWith("fabric: 3 of the set's 4 nodes placed (by their agents); the placements of 1 agent (x) are not"
                + " used, as they disagree with the others': switch leaf-3 is under spine-1");
    }

    @Test
    void aRunNamesTheLeafItsAgentsPlacedTheLossyNodesUnderAndExcludesThem() {
        FakeFleet fleet = new FakeFleet("n", 12, 11);
        for (int i = 5; i <= 8; i++) {
            fleet.quiet.add(String.format("n%04d", i));
        }
        fleet.placement = n -> new PreflightWire.Placement(List.of(Integer.parseInt(n.substring(1)) <= 4 ? "leaf-1"
                : Integer.parseInt(n.substring(1)) <= 8 ? "leaf-2" : "leaf-3", "spine-1"), null, "lldp");
        StringWriter progress = new StringWriter();
        GateRun.Result r = fleet.run(Duration.ofSeconds(20), progress);
        assertThat(progress.toString()).contains("fabricd preflight: fabric: 12 of the set's 12 nodes placed (by their agents)\n");
        assertThat(r.verdicts().fabric().suspects()).extracting(FabricSuspect::ids).containsExactly(List.of("switch:leaf-2"));
        assertThat(r.verdicts().excluded()).containsExactly("n0005", "n0006", "n0007", "n0008");
        assertThat(r.verdicts().excludedLinks()).isNotEmpty().allMatch(l -> LinkVerdict.BLAME_FABRIC.equals(l.blame()));
        StringWriter text = new StringWriter();
        GateReport report = new GateReport(r.verdicts(), r.elapsed(), r.phases(), 1);
        report.text(new PrintWriter(text));
        // the drain reason (200 characters at most) keeps what to do
        assertThat(report.excludedLines().lines().findFirst().orElseThrow()).startsWith("n0005\texclude\tn0005: behind switch leaf-2, which the "
                + "set's bad links share (5 of 5 pairs through it bad): check that switch");
        assertThat(text.toString()).containsPattern("(?m)^fabric suspect +bad pairs +pairs that led there$")
                .containsPattern("(?m)^switch:leaf-2 +5 of 5 +n0004<->n0005, n0005<->n0006, n0006<->n0007, n0007<->n0008, n0008<->n0009$");
        // an agent that says something that is no placement is not placed, and its node is judged as ever
        fleet.placement = n -> n.equals("n0001") ? new PreflightWire.Placement(List.of("bad name"), null, "lldp")
                : n.equals("n0002") ? new PreflightWire.Placement(List.of("leaf-1"), null, "a source of a later build") : null;
        GateRun.Result none = fleet.run(Duration.ofSeconds(20), new StringWriter());
        assertThat(none.verdicts().fabric().placedPairs()).isZero();
        assertThat(none.verdicts().nodes()).hasSize(12);
    }
}
