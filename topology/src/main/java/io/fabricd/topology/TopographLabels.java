package io.fabricd.topology;

import io.fabricd.model.topology.Names;
import io.fabricd.model.topology.Placement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A node's placement from the labels NVIDIA topograph writes on its Kubernetes Node: switches
 * {@code fabric.topograph.run/tier-N} (tier 0 the leaf) and accelerator
 * {@code accelerator.topograph.run/domain}, or the older {@code network.topology.nvidia.com/{leaf,
 * spine,core,accelerator}} (configurable: {@link TopologyConfig#labels()}). The first family with a
 * label set on the Node is read.
 */
public final class TopographLabels {
    private TopographLabels() {
    }

    /**
     * The placement the labels give {@code node}; empty when no family's label is set.
     *
     * @throws IllegalArgumentException naming the label when a value is not a name, or a tier is set
     *         above one that is not: never a wrong placement
     */
    public static Optional<Placement> placement(String node, Map<String, String> labels, List<TopologyConfig.LabelFamily> families) {
        // the family whose leaf is labelled (the older families share their spine key)
        for (TopologyConfig.LabelFamily f : families) {
            if (labels.containsKey(f.tiers().get(0))) {
                return Optional.of(read(node, labels, f));
            }
        }
        for (TopologyConfig.LabelFamily f : families) {
            for (String key : f.tiers()) {
                if (labels.containsKey(key)) {
                    throw new IllegalArgumentException("Node label " + key + " is set but " + f.tiers().get(0) + " (the leaf) is not: "
                            + "a placement starts at the leaf; label the leaf, or correct topology.labels");
                }
            }
        }
        for (TopologyConfig.LabelFamily f : families) {
            if (f.accelerator() != null && labels.containsKey(f.accelerator())) {
                return Optional.of(new Placement(node, List.of(), name(f.accelerator(), labels.get(f.accelerator())),
                        Placement.Source.TOPOGRAPH));
            }
        }
        return Optional.empty();
    }

    /** The family's switches, from the leaf up to the first tier not labelled, and its accelerator. */
    private static Placement read(String node, Map<String, String> labels, TopologyConfig.LabelFamily f) {
        List<String> switches = new ArrayList<>();
        String missing = null;
        for (String key : f.tiers()) {
            String v = labels.get(key);
            if (v == null) {
                missing = missing == null ? key : missing;
            } else if (missing != null) {
                throw new IllegalArgumentException("Node label " + key + " is set but " + missing + " below it is not: "
                        + "a placement has no gaps; label the missing tier, or correct topology.labels");
            } else {
                switches.add(name(key, v));
            }
        }
        String acc = f.accelerator() == null ? null : labels.get(f.accelerator());
        return new Placement(node, switches, acc == null ? null : name(f.accelerator(), acc), Placement.Source.TOPOGRAPH);
    }

    private static String name(String key, String value) {
        if (!Names.valid(value)) {
            throw new IllegalArgumentException("Node label " + key + "=" + Names.quoted(value) + " is not a name (letters, digits and "
                    + ". _ - : /, starting with a letter or digit): correct the label; the Node's topograph labels place nothing until then");
        }
        return value;
    }
}
