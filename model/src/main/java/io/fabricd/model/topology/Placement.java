package io.fabricd.model.topology;

import java.util.List;
import java.util.Locale;

/**
 * Where one node sits in the fabric: the switches above it, tier by tier, and its accelerator
 * domain where one is known.
 *
 * @param node        the node's name (as the gate and the site's scheduler name it)
 * @param switches    tier 0 first (the leaf its cable reaches), then the spine, the core...; empty
 *                    when no switch is known (an accelerator domain alone)
 * @param accelerator the accelerator (NVLink) domain, or null
 * @param source      where this placement was learned
 */
public record Placement(String node, List<String> switches, String accelerator, Source source) {

    /** Where a placement was learned, in the order of trust (interfaces.md, "Topology"). */
    public enum Source {
        /** Slurm's topology.conf (tree or block plugin). */
        SLURM,
        /** Kubernetes Node labels written by NVIDIA topograph. */
        TOPOGRAPH,
        /** The rack labels of the node (a leaf only). */
        LABELS,
        /** A plain topology file of the site's. */
        FILE,
        /** The host's own evidence: the LLDP neighbour of its ports (a leaf only). */
        LLDP;

        /** The name in JSON and metric labels. */
        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public Placement {
        if (!Names.valid(node)) {
            throw new IllegalArgumentException("not a node name: " + Names.quoted(node));
        }
        switches = List.copyOf(switches);
        for (String s : switches) {
            if (!Names.valid(s)) {
                throw new IllegalArgumentException("node " + node + ": not a switch name: " + Names.quoted(s));
            }
        }
        if (accelerator != null && !Names.valid(accelerator)) {
            throw new IllegalArgumentException("node " + node + ": not an accelerator domain name: " + Names.quoted(accelerator));
        }
        if (source == null) {
            throw new IllegalArgumentException("node " + node + ": no source");
        }
    }

    /** The switch its cable reaches (tier 0), or null when none is known. */
    public String leaf() {
        return switches.isEmpty() ? null : switches.get(0);
    }

    /** The switch at {@code tier}, or null when the placement does not reach that tier. */
    public String at(int tier) {
        return tier < switches.size() ? switches.get(tier) : null;
    }
}
