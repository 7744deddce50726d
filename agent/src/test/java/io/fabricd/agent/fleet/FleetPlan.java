package io.fabricd.agent.fleet;

import io.fabricd.model.topology.Placement;
import io.fabricd.model.topology.Topology;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What a {@link FleetEmulator} serves, node by node in the set's order: the node's name, the fixture
 * host its agent reads (a folder of collectors/src/test/fixtures: its findings), the fault planted
 * on it, and where it sits in the fabric. A test states what it planted here and asserts the gate's
 * verdicts against it.
 */
public record FleetPlan(List<Node> nodes) {
    /** The fixture of a healthy node: no finding above info (the one PreflightFleetIT's agents read). */
    public static final String HEALTHY = "host-a-ib";
    /** A fixture with a critical finding (pfc_missing), as PreflightEndToEndTest's excluded node reads. */
    public static final String CRITICAL = "host-e-roce-variants";

    /** One node of the fleet. */
    public record Node(String name, String fixture, Fault fault, Placement placement) {
        public Node {
            if (!name.equals(placement.node())) {
                throw new IllegalArgumentException("node " + name + " placed as " + placement.node());
            }
        }
    }

    /** What is wrong with a node beyond its fixture's findings. */
    public sealed interface Fault {
        /** Nothing: its agent answers and its responder answers every probe. */
        record None() implements Fault {
        }

        /** Its UDP probe responder is reached through a relay that drops {@code share} of the answers (its NIC, cable or port). */
        record LossyUdp(double share) implements Fault {
            public LossyUdp {
                if (!(share > 0 && share < 1)) {
                    throw new IllegalArgumentException("loss share " + share + " is not between 0 and 1");
                }
            }
        }

        /** No agent: nothing listens at its address, a connection is refused (a node that is down, on a host that is up). */
        record Down() implements Fault {
        }

        /** Its agent accepts connections and never answers (a hung host): the gate's calls to it end by their deadlines. */
        record Silent() implements Fault {
        }
    }

    public static final Fault NONE = new Fault.None();

    public FleetPlan {
        nodes = List.copyOf(nodes);
        Set<String> names = new HashSet<>();
        for (Node n : nodes) {
            if (!names.add(n.name())) {
                throw new IllegalArgumentException("node " + n.name() + " planned twice");
            }
        }
        Topology.of(nodes.stream().map(Node::placement).toList()); // a fabric the topology model takes
    }

    /**
     * {@code count} healthy nodes {@code prefix0001}... on {@link #HEALTHY}, {@code perLeaf} to a
     * leaf switch ({@code leaf-001}...) and 16 leaves to a spine ({@code spine-01}...).
     */
    public static FleetPlan healthy(String prefix, int count, int perLeaf) {
        List<Node> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String name = String.format("%s%04d", prefix, i + 1);
            int leaf = i / perLeaf;
            out.add(new Node(name, HEALTHY, NONE, new Placement(name, List.of(String.format("leaf-%03d", leaf + 1),
                    String.format("spine-%02d", leaf / 16 + 1)), null, Placement.Source.FILE)));
        }
        return new FleetPlan(out);
    }

    /** This plan with node {@code name} on {@code fixture} and with {@code fault}. */
    public FleetPlan with(String name, String fixture, Fault fault) {
        List<Node> out = new ArrayList<>();
        boolean found = false;
        for (Node n : nodes) {
            found |= n.name().equals(name);
            out.add(n.name().equals(name) ? new Node(name, fixture, fault, n.placement()) : n);
        }
        if (!found) {
            throw new IllegalArgumentException("no node " + name + " in the plan");
        }
        return new FleetPlan(out);
    }

    /** The fabric's topology, as the plan places the nodes. */
    public Topology topology() {
        return Topology.of(nodes.stream().map(Node::placement).toList());
    }

    /** The node named so. */
    public Node node(String name) {
        return nodes.stream().filter(n -> n.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no node " + name + " in the plan"));
    }
}
