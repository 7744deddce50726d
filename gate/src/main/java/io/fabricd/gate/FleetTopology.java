package io.fabricd.gate;

import io.fabricd.model.topology.Placement;
import io.fabricd.model.topology.Topology;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The topology the gate judges the fabric by: the one it was handed (a site's file: trusted first),
 * and for the nodes it does not place, where their agents say they sit. Agents whose placements
 * disagree with it or with the others' (a switch at two tiers, under two switches) are left out, the
 * rest used: the agents that place a node under the same switches are taken together, the most
 * numerous first, so that one agent's wrong view gives way to its leaf's others. The line says how
 * many of the set's nodes are placed, whose placements were left out and why, and which of the set's
 * nodes are not placed (a topology naming the nodes otherwise than the set does places none of them).
 *
 * @param topology what the gate judges by
 * @param line     one line for the progress output; null when nothing places any node
 */
record FleetTopology(Topology topology, String line) {

    static FleetTopology of(Topology given, List<Placement> fromAgents, List<String> set) {
        Map<List<String>, List<Placement>> bySwitches = new LinkedHashMap<>();
        for (Placement p : fromAgents) {
            if (given.placement(p.node()).isEmpty()) {
                bySwitches.computeIfAbsent(p.switches(), k -> new ArrayList<>()).add(p);
            }
        }
        List<List<Placement>> groups = new ArrayList<>(bySwitches.values());
        groups.sort(Comparator.comparingInt(g -> -g.size()));
        List<Placement> all = new ArrayList<>(given.placements());
        groups.forEach(all::addAll);
        Topology topology;
        List<Placement> used = new ArrayList<>(given.placements());
        List<String> dropped = new ArrayList<>();
        String why = null;
        try {
            // the usual case at once; one group at a time only when some disagree
            topology = Topology.of(all);
            groups.clear();
        } catch (IllegalArgumentException e) {
            topology = given;
        }
        for (List<Placement> g : groups) {
            List<Placement> more = new ArrayList<>(used);
            more.addAll(g);
            try {
                topology = Topology.of(more);
                used = more;
            } catch (IllegalArgumentException e) {
                g.forEach(p -> dropped.add(p.node()));
                why = why == null ? e.getMessage() : why;
            }
        }
        if (topology.isEmpty() && dropped.isEmpty()) {
            return new FleetTopology(topology, null);
        }
        return new FleetTopology(topology, Texts.line(line(given, topology, set, dropped, why)));
    }

    /** "fabric: 60 of the set's 64 nodes placed (50 by the topology given, 10 by their agents); ...". */
    private static String line(Topology given, Topology used, List<String> set, List<String> dropped, String why) {
        int byGiven = 0;
        int byAgents = 0;
        List<String> unplaced = new ArrayList<>();
        Set<String> left = new HashSet<>(dropped);
        for (String n : set) {
            if (given.placement(n).isPresent()) {
                byGiven++;
            } else if (used.placement(n).isPresent()) {
                byAgents++;
            } else if (!left.contains(n)) {
                unplaced.add(n);
            }
        }
        String by = byGiven > 0 && byAgents > 0 ? " (" + byGiven + " by the topology given, " + byAgents + " by their agents)"
                : byGiven > 0 ? " (by the topology given)" : byAgents > 0 ? " (by their agents)" : "";
        StringBuilder s = new StringBuilder("fabric: " + (byGiven + byAgents) + " of the set's " + Texts.count(set.size(), "node") + " placed"
                + by);
        if (!unplaced.isEmpty()) {
            s.append("; not placed: ").append(Texts.names(unplaced)).append(given.isEmpty() ? ": their agents know no placement"
                    : ": check the names in the topology given");
        }
        if (!dropped.isEmpty()) {
            s.append("; the placements of ").append(Texts.count(dropped.size(), "agent")).append(" (").append(Texts.names(dropped))
                    .append(") are not used, as they disagree with ").append(given.isEmpty() ? "the others'" : "the topology given or the others'")
                    .append(": ").append(why);
        }
        return s.toString();
    }
}
