package io.fabricd.gate;

import io.fabricd.model.topology.Placement;
import io.fabricd.model.topology.Topology;
import java.util.ArrayList;
import java.util.List;

/**
 * The topology the gate judges the fabric by: the one it was handed (a site's file: trusted first),
 * and for the nodes it does not place, where their agents say they sit. When the agents' placements
 * disagree with it or with each other (a switch at two tiers, under two switches), the handed one is
 * used alone and the line says why.
 *
 * @param topology what the gate judges by
 * @param line     one line for the progress output; null when there is nothing to say
 */
record FleetTopology(Topology topology, String line) {

    static FleetTopology of(Topology given, List<Placement> fromAgents) {
        List<Placement> all = new ArrayList<>(given.placements());
        int added = 0;
        for (Placement p : fromAgents) {
            if (given.placement(p.node()).isEmpty()) {
                all.add(p);
                added++;
            }
        }
        if (added == 0) {
            return new FleetTopology(given, given.isEmpty() ? null : "fabric: " + Texts.count(given.placements().size(), "node")
                    + " placed by the topology given");
        }
        try {
            Topology merged = Topology.of(all);
            return new FleetTopology(merged, "fabric: " + Texts.count(all.size(), "node") + " placed" + (given.isEmpty() ? " by their agents"
                    : " (" + (all.size() - added) + " by the topology given, " + added + " by their agents)"));
        } catch (IllegalArgumentException e) {
            return new FleetTopology(given, "fabric: the agents' placements are not used: " + Texts.line(e.getMessage())
                    + (given.isEmpty() ? "; no fabric view" : "; the topology given alone"));
        }
    }
}
