package io.fabricd.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.model.topology.Element;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The fabric view on a simulated 1 024-node leaf/spine tree (docs/benchmarks.md, "Preflight: the
 * fabric view on a simulated leaf/spine tree"): per seed and kind of fault planted, a ring round
 * (probes and bandwidth) and the pingmesh's windows measured from the same truth as
 * {@link SimulatedFabricTest}'s (its node faults and noise too), then the gate's decision with the
 * topology. Prints one row per kind: the planted parts, those named, the precision of the switches
 * named and of every suspect (a NIC fault of the simulated fabric's own is a true one), the recall.
 */
class SimulatedTreeTest {
    static final int NODES = 1024;
    private static final long[] SEEDS = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};

    /** One kind's figures over the seeds. */
    private static final class Figures {
        int planted;
        int named;
        int switchesNamed;
        int switchesRight;
        int suspects;
        int suspectsRight;
        double decideMs;
        /** The least share of bad pairs through a planted switch, the most through a healthy one. */
        Double plantedLeast;
        double healthyMost;

        String row(SimulatedTree.Kind kind) {
            return String.format(Locale.ROOT, "| %s | %d | %d | %d | %s | %d | %s | %s | %s | %.3f | %.0f |",
                    kind.name().toLowerCase(Locale.ROOT), planted, named, switchesNamed, share(switchesRight, switchesNamed), suspects,
                    share(suspectsRight, suspects), share(named, planted), plantedLeast == null ? "-" : String.format(Locale.ROOT, "%.3f", plantedLeast),
                    healthyMost,
                    decideMs / SEEDS.length);
        }
    }

    @Test
    void theFabricViewNamesThePlantedPartsAndNoHealthySwitch() {
        Map<SimulatedTree.Kind, Figures> all = new EnumMap<>(SimulatedTree.Kind.class);
        for (SimulatedTree.Kind kind : SimulatedTree.Kind.values()) {
            Figures f = new Figures();
            for (long seed : SEEDS) {
                run(seed, kind, f);
            }
            all.put(kind, f);
        }
        System.out.println("fabric view on a simulated " + NODES + "-node leaf/spine tree (" + SimulatedTree.LEAVES + " leaves, 4-8 spines), "
                + SEEDS.length + " seeds per kind:");
        System.out.println("| planted | parts planted | named | switches named | switch precision | suspects | precision | recall "
                + "| bad share, planted switch (least) | bad share, healthy switch (most) | decide ms |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|---|");
        int switches = 0;
        int right = 0;
        for (Map.Entry<SimulatedTree.Kind, Figures> e : all.entrySet()) {
            Figures f = e.getValue();
            System.out.println(f.row(e.getKey()));
            switches += f.switchesNamed;
            right += f.switchesRight;
            assertThat(f.switchesNamed - f.switchesRight).as("healthy switches named, %s", e.getKey()).isZero();
            if (f.planted > 0) {
                assertThat((double) f.named / f.planted).as("recall, %s", e.getKey()).isGreaterThanOrEqualTo(0.9);
            }
        }
        assertThat((double) right / switches).as("switch precision").isGreaterThanOrEqualTo(0.95);
    }

    private static void run(long seed, SimulatedTree.Kind kind, Figures f) {
        SimulatedTree tree = new SimulatedTree(seed, NODES, kind);
        SimulatedFabric fabric = tree.fabric;
        List<LinkInput> links = new ArrayList<>(fabric.measure(RingPlan.ring(fabric.names), true));
        links.addAll(fabric.measure(tree.pingmesh(), false));
        List<NodeInput> nodes = fabric.nodeInputs();
        long t0 = System.nanoTime();
        Verdicts v = Gate.decide(nodes, links, Policy.defaults(), tree.topology);
        f.decideMs += (System.nanoTime() - t0) / 1e6;

        shares(v, nodes, tree, f);
        Set<Element> truth = new HashSet<>(tree.planted.keySet());
        for (String n : fabric.badNics()) {
            truth.add(new Element.Nic(n));
            truth.add(new Element.Cable(n, tree.topology.placement(n).orElseThrow().leaf()));
        }
        Set<Element> namedElements = new HashSet<>();
        for (FabricSuspect s : v.fabric().suspects()) {
            namedElements.addAll(s.elements());
            f.suspects++;
            f.suspectsRight += s.elements().stream().anyMatch(truth::contains) ? 1 : 0;
            if (s.elements().stream().anyMatch(e -> e instanceof Element.Switch)) {
                f.switchesNamed++;
                boolean right = s.elements().stream().anyMatch(tree.plantedSwitches()::contains);
                f.switchesRight += right ? 1 : 0;
                if (!right) {
                    System.out.println("seed " + seed + ", " + kind + ": healthy " + s.name() + " named: " + s.bad() + " of " + s.pairs()
                            + " bad; planted " + tree.planted.keySet());
                }
            }
        }
        for (Element e : tree.planted.keySet()) {
            if (!namedElements.contains(e)) {
                System.out.println("seed " + seed + ", " + kind + ": " + e.id() + " not named (planted " + tree.planted.keySet() + ")");
            }
        }
        f.planted += tree.planted.size();
        f.named += (int) tree.planted.keySet().stream().filter(namedElements::contains).count();
    }

    /** The judged pairs through a switch, and how many of them are bad. */
    private static final class Through {
        int bad;
        int all;
    }

    /** Per switch, the share of the judged pairs through it that are bad (pairs with an end whose agent did not answer left out). */
    private static void shares(Verdicts v, List<NodeInput> nodes, SimulatedTree tree, Figures f) {
        Set<String> answered = new HashSet<>();
        nodes.stream().filter(n -> n.state() == NodeInput.State.REACHABLE).forEach(n -> answered.add(n.node()));
        Map<Element, Through> tally = new HashMap<>();
        for (LinkVerdict l : v.links()) {
            if (l.verdict() == Verdict.UNKNOWN || !answered.contains(l.a()) || !answered.contains(l.b())) {
                continue;
            }
            for (Element e : tree.topology.path(l.a(), l.b()).orElseThrow()) {
                if (e instanceof Element.Switch) {
                    Through t = tally.computeIfAbsent(e, k -> new Through());
                    t.bad += l.verdict() == Verdict.EXCLUDE ? 1 : 0;
                    t.all++;
                }
            }
        }
        tally.forEach((e, t) -> {
            double share = (double) t.bad / t.all;
            if (tree.plantedSwitches().contains(e)) {
                f.plantedLeast = f.plantedLeast == null ? share : Math.min(f.plantedLeast, share);
            } else {
                f.healthyMost = Math.max(f.healthyMost, share);
            }
        });
    }

    private static String share(int part, int whole) {
        return whole == 0 ? "-" : String.format(Locale.ROOT, "%.3f", (double) part / whole);
    }
}
