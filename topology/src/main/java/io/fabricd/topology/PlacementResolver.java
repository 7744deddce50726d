package io.fabricd.topology;

import io.fabricd.model.topology.Names;
import io.fabricd.model.topology.Placement;
import io.fabricd.model.topology.Topology;
import java.util.List;
import java.util.Optional;

/**
 * Which source places a node, in the order of trust (docs/topology.md): Slurm's topology.conf, then
 * topograph's Node labels, then the node's rack label (its leaf alone), then the plain topology file.
 * The first that knows the node places it whole; sources are not mixed. The host's own evidence
 * (LLDP) is compared with the winner, not ranked among them.
 */
public final class PlacementResolver {
    private PlacementResolver() {
    }

    /**
     * @param node      the node's name; a file that lists its short name (up to the first dot) places it too
     * @param file      the topology file's (SLURM or FILE placements), {@link Topology#EMPTY} when none
     * @param topograph the placement the Node's topograph labels give, or empty
     * @param rack      the node's rack (ToR) label, or null
     */
    public static Optional<Placement> resolve(String node, Topology file, Optional<Placement> topograph, String rack) {
        Optional<Placement> listed = inFile(node, file);
        if (listed.isPresent() && listed.get().source() == Placement.Source.SLURM) {
            return listed;
        }
        if (topograph.isPresent()) {
            return topograph;
        }
        if (rack != null && Names.valid(rack) && Names.valid(node)) {
            return Optional.of(new Placement(node, List.of(rack), null, Placement.Source.LABELS));
        }
        return listed;
    }

    /** The file's placement of {@code node}, or of its short name. */
    static Optional<Placement> inFile(String node, Topology file) {
        if (node == null) {
            return Optional.empty();
        }
        Optional<Placement> p = file.placement(node);
        int dot = node.indexOf('.');
        return p.isPresent() || dot <= 0 ? p : file.placement(node.substring(0, dot));
    }
}
