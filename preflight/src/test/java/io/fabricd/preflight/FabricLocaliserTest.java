package io.fabricd.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.model.topology.Placement;
import io.fabricd.model.topology.Topology;
import io.fabricd.preflight.FabricLocaliser.Measured;
import io.fabricd.preflight.FabricLocaliser.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.function.BiPredicate;
import org.junit.jupiter.api.Test;

/**
 * The fabric view on small hand-made trees: two spines under a core, two leaves under each, four
 * nodes under each leaf (a1-a4 under leaf-a, b1-b4 under leaf-b, both under spine-1; c, d under spine-2),
 * and x1 alone under leaf-x (spine-2).
 */
class FabricLocaliserTest {
    private static final Topology TREE = tree();

    private static Topology tree() {
        List<Placement> p = new ArrayList<>();
        for (String leaf : List.of("a", "b", "c", "d")) {
            for (int i = 1; i <= 4; i++) {
                p.add(new Placement(leaf + i, List.of("leaf-" + leaf, leaf.compareTo("b") <= 0 ? "spine-1" : "spine-2", "core"), null,
                        Placement.Source.FILE));
            }
        }
        p.add(new Placement("x1", List.of("leaf-x", "spine-2", "core"), null, Placement.Source.FILE));
        return Topology.of(p);
    }

    /** Every pair of {@code nodes} once, bad when {@code bad} says so. */
    private static List<Measured> mesh(List<String> nodes, BiPredicate<String, String> bad) {
        List<Measured> out = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            for (int j = i + 1; j < nodes.size(); j++) {
                String a = nodes.get(i);
                String b = nodes.get(j);
                out.add(new Measured(new Pair(a, b), bad.test(a, b) ? Outcome.BAD : Outcome.GOOD));
            }
        }
        return out;
    }

    private static final List<String> ALL = List.of("a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4", "c1", "c2", "c3", "c4", "d1", "d2",
            "d3", "d4", "x1");

    @Test
    void aHealthyMeshNamesNothing() {
        Fabric f = FabricLocaliser.locate(mesh(ALL, (a, b) -> false), TREE);
        assertThat(f.suspects()).isEmpty();
        assertThat(f.placedPairs()).isEqualTo(17 * 16 / 2);
        assertThat(f.unplacedPairs()).isZero();
    }

    @Test
    void aNicAndItsCableAreOneSuspectNeverOneGuessed() {
        Fabric f = FabricLocaliser.locate(mesh(ALL, (a, b) -> a.equals("b2") || b.equals("b2")), TREE);
        assertThat(f.suspects()).singleElement().satisfies(s -> {
            assertThat(s.ids()).containsExactly("cable:b2", "nic:b2");
            assertThat(s.name()).isEqualTo("one of cable b2, nic b2");
            assertThat(s.aboveTheCables()).isFalse();
            assertThat(s.bad()).isEqualTo(16);
            assertThat(s.pairs()).isEqualTo(16);
            assertThat(s.badShare()).isEqualTo(1.0);
            assertThat(s.badPairs()).hasSize(16).allMatch(p -> p.a().equals("b2") || p.b().equals("b2"));
        });
    }

    @Test
    void aLeafIsNamedForTheBadPairsItsNodesShareAndTheirNicsAreNot() {
        Fabric f = FabricLocaliser.locate(mesh(ALL, (a, b) -> a.startsWith("c") || b.startsWith("c")), TREE);
        assertThat(f.suspects()).singleElement().satisfies(s -> {
            assertThat(s.ids()).containsExactly("switch:leaf-c");
            assertThat(s.leaves()).containsExactly("leaf-c");
            assertThat(s.aboveTheCables()).isTrue();
            assertThat(s.bad()).isEqualTo(4 * 3 / 2 + 4 * 13);
            assertThat(s.badShare()).isEqualTo(1.0);
        });
    }

    @Test
    void aSpineIsNamedForThePairsThatCrossItWhileItsLeavesCleanPairsClearThem() {
        // spine-1 loses what crosses it: a-b pairs and a, b to c, d, x; a-a and b-b pairs stay under their leaf
        Fabric f = FabricLocaliser.locate(mesh(ALL, (a, b) -> a.charAt(0) != b.charAt(0) && (a.charAt(0) <= 'b' || b.charAt(0) <= 'b')), TREE);
        assertThat(f.suspects()).extracting(FabricSuspect::ids).containsExactly(List.of("switch:spine-1"));
    }

    @Test
    void anUplinkIsNamedAloneWhenTheLeafsOwnPairsAreGood() {
        // everything between leaf-d and the rest is bad; d-d pairs are good: the leaf is cleared by them, its uplink is not
        Fabric f = FabricLocaliser.locate(mesh(ALL, (a, b) -> a.startsWith("d") != b.startsWith("d")), TREE);
        assertThat(f.suspects()).extracting(FabricSuspect::ids).containsExactly(List.of("uplink:leaf-d>spine-2"));
    }

    @Test
    void aLeafWithOneNodeUnderItIsOneSuspectWithThatNode() {
        Fabric f = FabricLocaliser.locate(mesh(ALL, (a, b) -> a.equals("x1") || b.equals("x1")), TREE);
        assertThat(f.suspects()).singleElement().satisfies(s -> {
            assertThat(s.ids()).containsExactly("cable:x1", "nic:x1", "switch:leaf-x", "uplink:leaf-x>spine-2");
            assertThat(s.leaves()).containsExactly("leaf-x");
            // the node's own path is among them: not a part above the cables alone
            assertThat(s.nodes()).containsExactly("x1");
            assertThat(s.aboveTheCables()).isFalse();
        });
    }

    @Test
    void aLeafWithTwoOfTheSetsNodesIsNamedWithBothNodesPathsAndOneWithMoreIsNot() {
        // c1 and c2 alone of leaf-c in the set: their NICs bad or the leaf bad hurt the same pairs
        List<String> two = ALL.stream().filter(n -> !n.equals("c3") && !n.equals("c4")).toList();
        Fabric f = FabricLocaliser.locate(mesh(two, (a, b) -> a.startsWith("c") || b.startsWith("c")), TREE);
        assertThat(f.suspects()).singleElement().satisfies(s -> {
            assertThat(s.ids()).containsExactly("cable:c1", "cable:c2", "nic:c1", "nic:c2", "switch:leaf-c");
            assertThat(s.nodes()).containsExactly("c1", "c2");
            assertThat(s.aboveTheCables()).isFalse();
        });
        // three of them: the leaf alone, the fewest elements
        List<String> three = ALL.stream().filter(n -> !n.equals("c4")).toList();
        assertThat(FabricLocaliser.locate(mesh(three, (a, b) -> a.startsWith("c") || b.startsWith("c")), TREE).suspects())
                .extracting(FabricSuspect::ids).containsExactly(List.of("switch:leaf-c"));
    }

    @Test
    void aFewBadPairsAndAMinorityOfAnElementsPairsNameNothing() {
        // one bad pair alone; and a1's pairs bad with two partners of sixteen: good pairs clear it
        assertThat(FabricLocaliser.locate(mesh(ALL, (a, b) -> a.equals("a1") && b.equals("c3")), TREE).suspects()).isEmpty();
        assertThat(FabricLocaliser.locate(mesh(ALL, (a, b) -> a.equals("a1") && Set.of("c3", "d2").contains(b)), TREE).suspects()).isEmpty();
    }

    @Test
    void severalFaultsAtOnceAreEachNamedAndAPartTheyExplainBetweenThemIsNot() {
        // leaf-a and leaf-b both bad: spine-1's pairs are all theirs, so spine-1 is not named besides them; and b... a NIC under spine-2
        Fabric f = FabricLocaliser.locate(mesh(ALL, (a, b) -> a.charAt(0) <= 'b' || b.charAt(0) <= 'b' || a.equals("d3") || b.equals("d3")),
                TREE);
        assertThat(f.suspects()).extracting(FabricSuspect::ids).containsExactlyInAnyOrder(List.of("switch:leaf-a"), List.of("switch:leaf-b"),
                List.of("cable:d3", "nic:d3"));
        // every bad pair explained once
        assertThat(f.suspects().stream().mapToInt(s -> s.badPairs().size()).sum())
                .isEqualTo((int) mesh(ALL, (a, b) -> a.charAt(0) <= 'b' || b.charAt(0) <= 'b' || a.equals("d3") || b.equals("d3")).stream()
                        .filter(m -> m.outcome() == Outcome.BAD).count());
    }

    @Test
    void pairsWithoutAKnownPathAndUnmeasuredOnesAreLeftOut() {
        List<Measured> m = new ArrayList<>(mesh(List.of("a1", "a2", "a3"), (a, b) -> false));
        m.add(new Measured(new Pair("a1", "elsewhere"), Outcome.BAD));
        m.add(new Measured(new Pair("a2", "elsewhere"), Outcome.BAD));
        m.add(new Measured(new Pair("a1", "b1"), Outcome.UNMEASURED));
        Fabric f = FabricLocaliser.locate(m, TREE);
        assertThat(f.placedPairs()).isEqualTo(3);
        assertThat(f.unplacedPairs()).isEqualTo(2);
        assertThat(f.suspects()).isEmpty();
        assertThat(FabricLocaliser.locate(m, Topology.EMPTY).unplacedPairs()).isEqualTo(5);
    }

    @Test
    void aLargeSetWithManyBadNicsIsCoveredInTime() {
        // 10 000 nodes under 100 leaves under 10 spines; each node with its next and 2 others; every tenth node's NIC bad
        List<Placement> p = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            names.add("g" + i);
            p.add(new Placement("g" + i, List.of("leaf-" + i / 100, "spine-" + i / 1000, "core"), null, Placement.Source.FILE));
        }
        Topology big = Topology.of(p);
        Random random = new Random(7);
        List<Measured> m = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            for (int j : List.of((i + 1) % names.size(), random.nextInt(names.size()), random.nextInt(names.size()))) {
                if (j != i) {
                    m.add(new Measured(new Pair(names.get(i), names.get(j)), i % 10 == 0 || j % 10 == 0 ? Outcome.BAD : Outcome.GOOD));
                }
            }
        }
        long t0 = System.nanoTime();
        Fabric f = FabricLocaliser.locate(m, big);
        double ms = (System.nanoTime() - t0) / 1e6;
        System.out.printf(Locale.ROOT, "fabric view of %d pairs, 10 000 nodes, 1 000 bad NICs: %.0f ms%n", m.size(), ms);
        assertThat(f.suspects()).hasSize(1000).allMatch(s -> s.ids().size() == 2 && s.ids().get(1).startsWith("nic:"));
        assertThat(ms).as("a hang guard, not a speed claim").isLessThan(20_000);
    }
}
