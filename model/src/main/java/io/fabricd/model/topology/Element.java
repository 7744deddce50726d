package io.fabricd.model.topology;

/**
 * A part of the fabric a probe between two nodes crosses: the nodes' NICs and cables, the switches
 * and the links between switches. A NIC and its cable lie on exactly the same paths, so the probes
 * alone never tell them apart; host evidence (the port's error counters) can.
 */
public sealed interface Element extends Comparable<Element> {

    /** The name in text, JSON and metric labels: "nic:node-7", "cable:node-7", "switch:leaf-07", "uplink:leaf-07>spine-1". */
    String id();

    /** What kind of part, in JSON: nic, cable, switch, uplink. */
    String kind();

    @Override
    default int compareTo(Element o) {
        return id().compareTo(o.id());
    }

    /** A node's NIC (the port the gate's probes leave by). */
    record Nic(String node) implements Element {
        @Override
        public String id() {
            return "nic:" + node;
        }

        @Override
        public String kind() {
            return "nic";
        }
    }

    /** The cable from a node to its leaf. */
    record Cable(String node, String leaf) implements Element {
        @Override
        public String id() {
            return "cable:" + node;
        }

        @Override
        public String kind() {
            return "cable";
        }
    }

    /** A switch at a tier (0 the leaf). */
    record Switch(String name, int tier) implements Element {
        @Override
        public String id() {
            return "switch:" + name;
        }

        @Override
        public String kind() {
            return "switch";
        }
    }

    /** The link (or bundle of links) from a switch to the one above it. */
    record Uplink(String lower, String upper) implements Element {
        @Override
        public String id() {
            return "uplink:" + lower + ">" + upper;
        }

        @Override
        public String kind() {
            return "uplink";
        }
    }
}
