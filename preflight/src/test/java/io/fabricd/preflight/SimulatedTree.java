package io.fabricd.preflight;

import io.fabricd.model.topology.Element;
import io.fabricd.model.topology.Placement;
import io.fabricd.model.topology.Topology;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * A {@link SimulatedFabric} placed in a leaf/spine tree, as Slurm's topology.conf and topograph
 * describe one: {@link #LEAVES} leaves of consecutive nodes, each under one of 4 to 8 spines, the
 * spines under one core switch; with faults planted on parts of the fabric (a host's NIC, its cable, a
 * leaf, a spine, several at once) that add loss or round-trip time to every pair whose path crosses
 * them, on top of the simulated fabric's own faults and noise. {@link #pingmesh} gives the pairs the
 * agents' pingmesh windows would cover: a few peers under the same leaf and a few under others.
 */
final class SimulatedTree {
    static final int LEAVES = 32;
    private static final int IN_LEAF_PEERS = 2;
    private static final int OTHER_LEAF_PEERS = 3;

    /** What is planted. */
    enum Kind { NONE, NIC, CABLE, LEAF, SPINE, SEVERAL }

    final SimulatedFabric fabric;
    final Topology topology;
    final int spines;
    /** The planted faults and what each adds per direction. */
    final Map<Element, SimulatedFabric.PathFault> planted = new LinkedHashMap<>();
    private final Random random;
    private final List<List<String>> leaves = new ArrayList<>();

    SimulatedTree(long seed, int n, Kind kind) {
        random = new Random(seed * 7919 + kind.ordinal());
        fabric = new SimulatedFabric(seed, n);
        spines = 4 + random.nextInt(5);
        List<Placement> placements = new ArrayList<>();
        for (int l = 0; l < LEAVES; l++) {
            leaves.add(new ArrayList<>());
        }
        for (int i = 0; i < n; i++) {
            int l = i * LEAVES / n;
            String node = fabric.names.get(i);
            leaves.get(l).add(node);
            placements.add(new Placement(node, List.of(leaf(l), spine(l * spines / LEAVES), "core-1"), null, Placement.Source.SLURM));
        }
        topology = Topology.of(placements);
        switch (kind) {
            case NONE -> { }
            case NIC -> plant(new Element.Nic(healthyNode()));
            case CABLE -> {
                String node = healthyNode();
                plant(new Element.Cable(node, topology.placement(node).orElseThrow().leaf()));
            }
            case LEAF -> plant(new Element.Switch(leaf(random.nextInt(LEAVES)), 0));
            case SPINE -> plant(new Element.Switch(spine(random.nextInt(spines)), 1));
            case SEVERAL -> {
                plant(new Element.Switch(leaf(random.nextInt(LEAVES)), 0));
                plant(new Element.Switch(spine(random.nextInt(spines)), 1));
                plant(new Element.Nic(healthyNode()));
                String node = healthyNode();
                plant(new Element.Cable(node, topology.placement(node).orElseThrow().leaf()));
            }
        }
        fabric.withPaths(this::between);
    }

    private static String leaf(int l) {
        return String.format("leaf-%02d", l + 1);
    }

    private static String spine(int s) {
        return "spine-" + (s + 1);
    }

    /** A node bad in no other way, not planted yet. */
    private String healthyNode() {
        Set<String> bad = fabric.badNodes();
        bad.addAll(fabric.badNics());
        while (true) {
            String node = fabric.names.get(random.nextInt(fabric.names.size()));
            if (!bad.contains(node) && !planted.containsKey(new Element.Nic(node))
                    && planted.keySet().stream().noneMatch(e -> e instanceof Element.Cable c && c.node().equals(node))) {
                return node;
            }
        }
    }

    /** Loss (3-15 % each way) or, one time in three, round-trip time (+0.3-2 ms). */
    private void plant(Element e) {
        boolean slow = random.nextInt(3) == 0;
        planted.put(e, slow ? new SimulatedFabric.PathFault(0, 300e-6 + random.nextDouble() * 1.7e-3)
                : new SimulatedFabric.PathFault(0.03 + random.nextDouble() * 0.12, 0));
    }

    private SimulatedFabric.PathFault between(String a, String b) {
        if (planted.isEmpty()) {
            return SimulatedFabric.PathFault.NONE;
        }
        double loss = 0;
        double seconds = 0;
        for (Element e : topology.path(a, b).orElseThrow()) {
            SimulatedFabric.PathFault f = planted.get(e);
            if (f != null) {
                loss += f.loss();
                seconds += f.seconds();
            }
        }
        return new SimulatedFabric.PathFault(loss, seconds);
    }

    /** The planted switches. */
    Set<Element> plantedSwitches() {
        Set<Element> out = new HashSet<>();
        planted.keySet().stream().filter(e -> e instanceof Element.Switch).forEach(out::add);
        return out;
    }

    /**
     * The pairs the pingmesh's windows cover: each node with {@value #IN_LEAF_PEERS} peers under its
     * leaf and {@value #OTHER_LEAF_PEERS} under others, drawn from the tree's own seed.
     */
    List<Pair> pingmesh() {
        Set<Pair> out = new LinkedHashSet<>();
        List<String> all = fabric.names;
        for (List<String> leaf : leaves) {
            for (String node : leaf) {
                for (int k = 0; k < IN_LEAF_PEERS; k++) {
                    String peer = leaf.get(random.nextInt(leaf.size()));
                    if (!peer.equals(node)) {
                        out.add(new Pair(node, peer).unordered());
                    }
                }
                for (int k = 0; k < OTHER_LEAF_PEERS; k++) {
                    String peer = all.get(random.nextInt(all.size()));
                    if (!leaf.contains(peer)) {
                        out.add(new Pair(node, peer).unordered());
                    }
                }
            }
        }
        return new ArrayList<>(out);
    }
}
