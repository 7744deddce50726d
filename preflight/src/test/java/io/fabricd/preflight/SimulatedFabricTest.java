package io.fabricd.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The gate on a simulated 1 000-node fabric (docs/benchmarks.md, "Preflight: the gate's decision on
 * a simulated 1 000-node fabric"): a ring round, one repair round for the suspects, measured from
 * the same truth, then the decision. Prints one line of figures per seed: "decide ms" is both
 * decisions as the test made them (the first seed in a cold JVM, as the CLI makes its one), "warm
 * decide ms" the best of 20 more of the last one.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SimulatedFabricTest {
    static final int NODES = 1000;

    /** One seed's figures. */
    record Figures(long seed, int badNodes, int badLinks, int unreachable, int excluded, double nodePrecision, double nodeRecall,
                   int linksFound, double linkPrecision, double linkRecall, int ringPairs, int repairPairs, double planMs,
                   double decideMs, double warmDecideMs) {
        String row() {
            return String.format(Locale.ROOT, "| %d | %d | %d | %d | %d | %.3f | %.3f | %d | %.3f | %.3f | %d + %d | %.2f | %.1f | %.1f |",
                    seed, badNodes, badLinks, unreachable, excluded, nodePrecision, nodeRecall, linksFound, linkPrecision, linkRecall,
                    ringPairs, repairPairs, planMs, decideMs, warmDecideMs);
        }
    }

    static final String HEADER = "| seed | bad nodes | bad links | unreachable | excluded | precision | recall | links found "
            + "| link precision | link recall | pairs (ring + repair) | plan ms | decide ms | warm decide ms |";
    private static final int WARM_RUNS = 20;

    @BeforeAll
    static void header() {
        System.out.println("preflight gate on a simulated " + NODES + "-node fabric:");
        System.out.println(HEADER);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
    @Order(1)
    void theExcludeListIsRightOnAThousandNodes(long seed) {
        Figures f = run(seed, NODES, 1);
        System.out.println(f.row());
        assertThat(f.nodePrecision()).as("node precision, seed %d", seed).isGreaterThanOrEqualTo(0.95);
        assertThat(f.nodeRecall()).as("node recall, seed %d", seed).isGreaterThanOrEqualTo(0.9);
    }

    @ParameterizedTest
    @ValueSource(longs = {101, 102, 103, 104, 105})
    @Order(2)
    void fiveTimesTheFaults(long seed) {
        Figures f = run(seed, NODES, 5);
        System.out.println(f.row() + " 5x faults");
        assertThat(f.nodePrecision()).as("node precision, seed %d", seed).isGreaterThanOrEqualTo(0.95);
        assertThat(f.nodeRecall()).as("node recall, seed %d", seed).isGreaterThanOrEqualTo(0.9);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 101})
    @Order(3)
    void everyHostSlowToAnswerIsExcludedForItsHostStarvedOrStalling(long seed) {
        SimulatedFabric fabric = new SimulatedFabric(seed, NODES, seed > 100 ? 5 : 1);
        Verdicts v = Gate.decide(fabric.nodeInputs(), fabric.measure(RingPlan.ring(fabric.names), true), Policy.defaults());
        assertThat(fabric.slowHosts).isNotEmpty();
        for (NodeVerdict n : v.nodes()) {
            boolean slowHost = n.reasons().stream().anyMatch(r -> r.startsWith(n.node() + ": slow host: "));
            assertThat(slowHost).as("%s, seed %d: %s", n.node(), seed, n.reasons()).isEqualTo(fabric.slowHosts.contains(n.node()));
        }
    }

    static Figures run(long seed, int n, int density) {
        SimulatedFabric fabric = new SimulatedFabric(seed, n, density);
        List<NodeInput> nodes = fabric.nodeInputs();
        Policy policy = Policy.defaults();

        long t0 = System.nanoTime();
        List<Pair> ring = RingPlan.ring(fabric.names);
        long plan = System.nanoTime() - t0;
        List<LinkInput> links = new ArrayList<>(fabric.measure(ring, true));
        t0 = System.nanoTime();
        Verdicts first = Gate.decide(nodes, links, policy);
        long decide = System.nanoTime() - t0;

        t0 = System.nanoTime();
        List<Pair> repair = RingPlan.repair(first.suspectNodes(), first.knownGood(), new HashSet<>(ring));
        plan += System.nanoTime() - t0;
        links.addAll(fabric.measure(repair, false));
        t0 = System.nanoTime();
        Verdicts last = Gate.decide(nodes, links, policy);
        decide += System.nanoTime() - t0;

        long warm = Long.MAX_VALUE;
        for (int i = 0; i < WARM_RUNS; i++) {
            t0 = System.nanoTime();
            Gate.decide(nodes, links, policy);
            warm = Math.min(warm, System.nanoTime() - t0);
        }

        Set<String> bad = fabric.badNodes();
        Set<String> excluded = new HashSet<>(last.excluded());
        long truePositives = excluded.stream().filter(bad::contains).count();

        Set<Pair> measured = new HashSet<>();
        for (LinkVerdict l : last.links()) {
            measured.add(new Pair(l.a(), l.b()).unordered());
        }
        Set<Pair> detectable = new HashSet<>();
        for (Pair p : fabric.badLinks) {
            if (measured.contains(p) && !bad.contains(p.a()) && !bad.contains(p.b())) {
                detectable.add(p);
            }
        }
        Set<Pair> found = new HashSet<>();
        for (LinkVerdict l : last.badLinks()) {
            found.add(new Pair(l.a(), l.b()).unordered());
        }
        long linksRight = found.stream().filter(fabric.badLinks::contains).count();
        long linksCaught = detectable.stream().filter(found::contains).count();
        return new Figures(seed, bad.size(), fabric.badLinks.size(), fabric.unreachable.size(), excluded.size(),
                ratio(truePositives, excluded.size()), ratio(truePositives, bad.size()), found.size(), ratio(linksRight, found.size()),
                ratio(linksCaught, detectable.size()), ring.size(), repair.size(), plan / 1e6, decide / 1e6,
                warm / 1e6);
    }

    private static double ratio(long part, long whole) {
        return whole == 0 ? 1.0 : (double) part / whole;
    }
}
