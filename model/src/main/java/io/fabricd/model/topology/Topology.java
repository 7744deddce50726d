package io.fabricd.model.topology;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The fabric as a tree: each node's placement, each switch's tier and the switch above it. Built only
 * from placements that agree: a node placed twice, a switch at two tiers or under two switches
 * (which is also how a cycle of switches shows) is refused, naming both. A file's parser says
 * where (file and line) before it gets here; this is the last line of defence.
 */
public final class Topology {
    public static final Topology EMPTY = new Topology(Map.of(), Map.of(), Map.of());

    private final Map<String, Placement> nodes;
    private final Map<String, Integer> tiers;
    private final Map<String, String> parents;

    private Topology(Map<String, Placement> nodes, Map<String, Integer> tiers, Map<String, String> parents) {
        this.nodes = nodes;
        this.tiers = tiers;
        this.parents = parents;
    }

    /**
     * @throws IllegalArgumentException naming the node or switch when the placements disagree
     */
    public static Topology of(Collection<Placement> placements) {
        Map<String, Placement> nodes = new LinkedHashMap<>();
        Map<String, Integer> tiers = new HashMap<>();
        Map<String, String> parents = new HashMap<>();
        Map<String, String> firstSeen = new HashMap<>(); // switch -> the node whose placement named it first
        for (Placement p : placements) {
            Placement before = nodes.putIfAbsent(p.node(), p);
            if (before != null) {
                throw new IllegalArgumentException("node " + p.node() + " is placed twice: under " + describe(before) + " and under "
                        + describe(p));
            }
            List<String> s = p.switches();
            for (int t = 0; t < s.size(); t++) {
                String sw = s.get(t);
                if (nodes.containsKey(sw)) {
                    throw new IllegalArgumentException(sw + " is both a node and a switch");
                }
                Integer tier = tiers.putIfAbsent(sw, t);
                if (tier != null && tier != t) {
                    throw new IllegalArgumentException("switch " + sw + " is at tier " + tier + " above node " + firstSeen.get(sw)
                            + " and at tier " + t + " above node " + p.node() + ": a switch sits at one tier (a cycle of switches shows so)");
                }
                firstSeen.putIfAbsent(sw, p.node());
                if (t + 1 < s.size()) {
                    String up = s.get(t + 1);
                    String was = parents.putIfAbsent(sw, up);
                    if (was != null && !was.equals(up)) {
                        throw new IllegalArgumentException("switch " + sw + " is under " + was + " (node " + firstSeen.get(sw) + ") and under "
                                + up + " (node " + p.node() + "): a tree has one switch above each");
                    }
                }
            }
        }
        for (String n : nodes.keySet()) {
            if (tiers.containsKey(n)) {
                throw new IllegalArgumentException(n + " is both a node and a switch");
            }
        }
        return new Topology(Collections.unmodifiableMap(nodes), Map.copyOf(tiers), Map.copyOf(parents));
    }

    private static String describe(Placement p) {
        return (p.switches().isEmpty() ? "no switch" : String.join(" < ", p.switches())) + " (" + p.source().wireName() + ")";
    }

    public boolean isEmpty() {
        return nodes.isEmpty();
    }

    public Optional<Placement> placement(String node) {
        return Optional.ofNullable(nodes.get(node));
    }

    /** The placements, in the order they were given. */
    public Collection<Placement> placements() {
        return nodes.values();
    }

    /** Every switch, by name. */
    public Set<String> switches() {
        return new TreeSet<>(tiers.keySet());
    }

    /** The switch's tier (0 a leaf), or -1 when it is not in the topology. */
    public int tier(String sw) {
        return tiers.getOrDefault(sw, -1);
    }

    /** The switch above {@code sw}, or null at the top or when unknown. */
    public String parent(String sw) {
        return parents.get(sw);
    }

    /**
     * What a probe between {@code a} and {@code b} crosses, each end's NIC and cable, up from a's leaf
     * to the lowest switch both are under and down to b's; empty when either node's leaf is unknown or
     * the two have no switch in common (the topology says nothing of the path).
     */
    public Optional<List<Element>> path(String a, String b) {
        Placement pa = nodes.get(a);
        Placement pb = nodes.get(b);
        if (pa == null || pb == null || pa.leaf() == null || pb.leaf() == null) {
            return Optional.empty();
        }
        List<String> up = pa.switches();
        List<String> down = pb.switches();
        int top = -1;
        for (int t = 0; t < Math.min(up.size(), down.size()); t++) {
            if (up.get(t).equals(down.get(t))) {
                top = t;
                break;
            }
        }
        if (top < 0) {
            return Optional.empty();
        }
        List<Element> path = new ArrayList<>();
        path.add(new Element.Nic(a));
        path.add(new Element.Cable(a, pa.leaf()));
        for (int t = 0; t < top; t++) {
            path.add(new Element.Switch(up.get(t), t));
            path.add(new Element.Uplink(up.get(t), up.get(t + 1)));
        }
        path.add(new Element.Switch(up.get(top), top));
        for (int t = top - 1; t >= 0; t--) {
            path.add(new Element.Uplink(down.get(t), down.get(t + 1)));
            path.add(new Element.Switch(down.get(t), t));
        }
        path.add(new Element.Cable(b, pb.leaf()));
        path.add(new Element.Nic(b));
        return Optional.of(List.copyOf(path));
    }
}
