package io.fabricd.topology;

import io.fabricd.model.topology.Names;
import io.fabricd.model.topology.Placement;
import io.fabricd.model.topology.Topology;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

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
     * @param node      the node's name; a file that lists it in another case, or with or without a
     *                  domain, places it too
     * @param file      the topology file's (SLURM or FILE placements), {@link Topology#EMPTY} when none
     * @param topograph the placement the Node's topograph labels give, or empty
     * @param rack      the node's rack (ToR) label, or null
     * @throws IllegalArgumentException when the file names the node ambiguously
     */
    public static Optional<Placement> resolve(String node, Topology file, Optional<Placement> topograph, String rack) {
        return resolve(node, inFile(node, file), topograph, rack);
    }

    /**
     * @param listed the file's placement of the node ({@link #inFile}), or empty
     */
    public static Optional<Placement> resolve(String node, Optional<Placement> listed, Optional<Placement> topograph, String rack) {
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

    /**
     * The file's placement of {@code node}: by its exact name, else by its name without case and
     * without a domain on either side ({@code ROCE-NODE-07} and {@code roce-node-07.dc1.example} are
     * host {@code roce-node-07}).
     *
     * @throws IllegalArgumentException when more than one of the file's nodes is the node so
     */
    public static Optional<Placement> inFile(String node, Topology file) {
        if (node == null) {
            return Optional.empty();
        }
        Optional<Placement> exact = file.placement(node);
        if (exact.isPresent()) {
            return exact;
        }
        String host = shortName(node);
        List<Placement> like = file.placements().stream().filter(p -> shortName(p.node()).equals(host)).limit(3).toList();
        if (like.size() > 1) {
            throw new IllegalArgumentException("this host (" + node + ") is named more than once in the file, as "
                    + like.stream().map(Placement::node).collect(Collectors.joining(", "))
                    + ": fabricd matches names without case and domain; name the host once, as it calls itself");
        }
        return like.stream().findFirst();
    }

    private static String shortName(String name) {
        int dot = name.indexOf('.');
        return (dot > 0 ? name.substring(0, dot) : name).toLowerCase(Locale.ROOT);
    }
}
