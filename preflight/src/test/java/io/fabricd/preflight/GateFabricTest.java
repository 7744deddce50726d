package io.fabricd.preflight;

import static io.fabricd.preflight.GateFixtures.link;
import static io.fabricd.preflight.GateFixtures.node;
import static io.fabricd.preflight.GateFixtures.reachable;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.model.topology.Placement;
import io.fabricd.model.topology.Topology;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The gate with a topology: twelve nodes, three under each of four leaves (n01-n03 under leaf-1,
 * n04-n06 under leaf-2, both under spine-1; n07-n09 under leaf-3, n10-n12 under leaf-4, both under
 * spine-2; the spines under one core), every pair probed
 * (as a pingmesh under a leaf and across leaves would), one part of the fabric losing what crosses it.
 */
class GateFabricTest {
    private static final double US = 1e-6;
    private static final List<String> NAMES = Hostlist.parse("n[01-12]");
    private static final Topology TREE = tree();

    private static Topology tree() {
        List<Placement> p = new ArrayList<>();
        for (int i = 0; i < NAMES.size(); i++) {
            int leaf = i / 3 + 1;
            p.add(new Placement(NAMES.get(i), List.of("leaf-" + leaf, leaf <= 2 ? "spine-1" : "spine-2", "core"), null, Placement.Source.SLURM));
        }
        return Topology.of(p);
    }

    /** Every pair, both ways, 100 probes each; those whose path crosses {@code part} lose 10. */
    private static List<LinkInput> mesh(String part) {
        return mesh(NAMES, TREE, Set.of(part));
    }

    /** Every pair of {@code names}, both ways, 100 probes each; those whose path crosses one of {@code parts} lose 10. */
    private static List<LinkInput> mesh(List<String> names, Topology tree, Set<String> parts) {
        List<LinkInput> out = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            for (int j = i + 1; j < names.size(); j++) {
                String a = names.get(i);
                String b = names.get(j);
                boolean hurt = tree.path(a, b).orElseThrow().stream().anyMatch(e -> parts.contains(e.id()));
                out.add(LinkInput.probes(a, b, "udp", 100, hurt ? 10 : 0, 30 * US));
                out.add(LinkInput.probes(b, a, "udp", 100, hurt ? 10 : 0, 30 * US));
            }
        }
        return out;
    }

    @Test
    void theNodesBehindASuspectLeafAreExcludedForItAndItsLinksAreItsNotTheirPartners() {
        Verdicts v = Gate.decide(reachable(NAMES), mesh("switch:leaf-2"), Policy.defaults(), TREE);
        assertThat(v.fabric().suspects()).extracting(FabricSuspect::ids).containsExactly(List.of("switch:leaf-2"));
        assertThat(v.excluded()).containsExactly("n04", "n05", "n06");
        String evidence = "30 of 30 pairs through it bad: n01<->n04, n01<->n05, n01<->n06, n02<->n04, n02<->n05 and 25 more";
        assertThat(node(v, "n05").reasons()).containsExactly("n05: behind switch leaf-2, which the set's bad links share (30 of 30 pairs "
                + "through it bad): check that switch (its ports' error counters and logs, its uplinks), then rerun; --on-suspect-switch keep "
                + "uses the node anyway; the pairs: n01<->n04, n01<->n05, n01<->n06, n02<->n04, n02<->n05 and 25 more");
        assertThat(link(v, "n01", "n05").blame()).isEqualTo(LinkVerdict.BLAME_FABRIC);
        assertThat(link(v, "n01", "n05").reasons()).containsExactly("link n01<->n05: 10 % probe loss (set median 0 %): explained by switch "
                + "leaf-2 (" + evidence + ")");
        assertThat(v.knownGood()).containsExactly("n01", "n02", "n03", "n07", "n08", "n09", "n10", "n11", "n12");
        assertThat(v.allPass()).isFalse();
    }

    @Test
    void keptNodesBehindASuspectLeafPassButItsLinksStayBad() {
        Verdicts v = Gate.decide(reachable(NAMES), mesh("switch:leaf-2"), Policy.defaults().withOnSuspectSwitch(Policy.SuspectSwitch.KEEP), TREE);
        assertThat(v.excluded()).isEmpty();
        assertThat(v.excludedLinks()).hasSize(30).allMatch(l -> LinkVerdict.BLAME_FABRIC.equals(l.blame()));
        assertThat(v.allPass()).isFalse();
    }

    @Test
    void aSuspectSpineExcludesNoNodeAndItsLinksAreIts() {
        Verdicts v = Gate.decide(reachable(NAMES), mesh("switch:spine-2"), Policy.defaults(), TREE);
        assertThat(v.fabric().suspects()).extracting(FabricSuspect::ids).containsExactly(List.of("switch:spine-2"));
        assertThat(v.excluded()).isEmpty();
        assertThat(v.excludedLinks()).hasSize(9 + 36).allMatch(l -> LinkVerdict.BLAME_FABRIC.equals(l.blame()));
    }

    @Test
    void withoutATopologyTheSameLinksAreTheNodesAsBefore() {
        Verdicts v = Gate.decide(reachable(NAMES), mesh("switch:leaf-2"), Policy.defaults());
        assertThat(v.fabric().suspects()).isEmpty();
        assertThat(v.fabric().placedPairs()).isZero();
        assertThat(v.excludedLinks()).noneMatch(l -> LinkVerdict.BLAME_FABRIC.equals(l.blame()));
        assertThat(v.excluded()).contains("n05").doesNotContain("n01");
    }

    /** The twelve nodes and {@code lone} under leaf-5 (spine-2) besides: a set spread thin over a leaf. */
    private static Topology withLeaf5(List<String> lone) {
        List<Placement> p = new ArrayList<>(TREE.placements());
        lone.forEach(n -> p.add(new Placement(n, List.of("leaf-5", "spine-2", "core"), null, Placement.Source.SLURM)));
        return Topology.of(p);
    }

    private static List<String> plus(List<String> more) {
        List<String> out = new ArrayList<>(NAMES);
        out.addAll(more);
        return out;
    }

    @Test
    void aBadNicOnTheOnlyNodeOfItsLeafExcludesItForItsOwnPathInEitherMode() {
        Topology tree = withLeaf5(List.of("m1"));
        List<String> names = plus(List.of("m1"));
        for (Policy policy : List.of(Policy.defaults(), Policy.defaults().withOnSuspectSwitch(Policy.SuspectSwitch.KEEP))) {
            Verdicts v = Gate.decide(reachable(names), mesh(names, tree, Set.of("nic:m1")), policy, tree);
            // the probes cannot tell the node's NIC from its leaf: one suspect, all four
            assertThat(v.fabric().suspects()).extracting(FabricSuspect::ids)
                    .containsExactly(List.of("cable:m1", "nic:m1", "switch:leaf-5", "uplink:leaf-5>spine-2"));
            assertThat(v.excluded()).as(policy.onSuspectSwitch().toString()).containsExactly("m1");
            assertThat(node(v, "m1").reasons()).containsExactly("m1: bad links with 12 nodes that are otherwise good (n01, n02, n03, n04, n05"
                    + " and 7 more): check its NIC, its cable or its leaf (the only node of leaf-5 in the set), then rerun");
            assertThat(link(v, "n01", "m1").blame()).isEqualTo("m1");
            assertThat(v.knownGood()).doesNotContain("m1").contains("n01", "n12");
        }
    }

    @Test
    void twoBadNicsUnderALeafOfTwoAreNamedWithTheLeafAndBothExcludedInEitherMode() {
        Topology tree = withLeaf5(List.of("m1", "m2"));
        List<String> names = plus(List.of("m1", "m2"));
        for (Policy policy : List.of(Policy.defaults(), Policy.defaults().withOnSuspectSwitch(Policy.SuspectSwitch.KEEP))) {
            Verdicts v = Gate.decide(reachable(names), mesh(names, tree, Set.of("nic:m1", "nic:m2")), policy, tree);
            // both NICs bad and the leaf bad hurt the same pairs: named together, never the leaf alone
            assertThat(v.fabric().suspects()).extracting(FabricSuspect::ids)
                    .containsExactly(List.of("cable:m1", "cable:m2", "nic:m1", "nic:m2", "switch:leaf-5"));
            assertThat(v.excluded()).as(policy.onSuspectSwitch().toString()).containsExactly("m1", "m2");
            assertThat(node(v, "m2").reasons()).singleElement().asString().endsWith(": check its NIC and cable and those of m1, or their leaf"
                    + " (the only two nodes of leaf-5 in the set), then rerun");
            assertThat(v.excludedLinks()).noneMatch(l -> LinkVerdict.BLAME_FABRIC.equals(l.blame()));
        }
        // the leaf itself bad: the same evidence, the same verdicts
        Verdicts leaf = Gate.decide(reachable(names), mesh(names, tree, Set.of("switch:leaf-5")), Policy.defaults()
                .withOnSuspectSwitch(Policy.SuspectSwitch.KEEP), tree);
        assertThat(leaf.excluded()).containsExactly("m1", "m2");
    }
}
