package io.fabricd.topology;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;

/**
 * The {@code topology:} section of fabricd's configuration (docs/topology.md); a key left out (or
 * null) takes its default.
 *
 * @param file   the topology file (Slurm's topology.conf or the plain file); default: Slurm's
 *               topology.conf where Slurm keeps it (beside $SLURM_CONF's slurm.conf, /etc/slurm,
 *               /etc/slurm-llnl), when one is there, no topology.yaml beside it (which Slurm reads
 *               instead) and the agent reads the live host; {@code none}: no file
 * @param labels the topograph label families of the Kubernetes Node, the first with a label set on
 *               the Node wins: each its switch keys from the leaf up and its accelerator key
 */
public record TopologyConfig(String file, List<LabelFamily> labels) {
    private static final Logger LOG = Logger.getLogger(TopologyConfig.class.getName());

    /** {@code file: none}: no topology file, not even Slurm's. */
    public static final String NO_FILE = "none";

    /** Where Slurm keeps topology.conf (beside slurm.conf), looked at in this order when {@code file} is not set. */
    public static final List<Path> SLURM_DIRS = List.of(Path.of("/etc/slurm"), Path.of("/etc/slurm-llnl"));

    /** topograph's labels, the current family first (fabric tier 0 is the leaf), then the older ones. */
    public static final List<LabelFamily> TOPOGRAPH = List.of(
            new LabelFamily(List.of("fabric.topograph.run/tier-0", "fabric.topograph.run/tier-1", "fabric.topograph.run/tier-2",
                    "fabric.topograph.run/tier-3"), "accelerator.topograph.run/domain"),
            new LabelFamily(List.of("network.topology.nvidia.com/leaf", "network.topology.nvidia.com/spine",
                    "network.topology.nvidia.com/core"), "network.topology.nvidia.com/accelerator"),
            new LabelFamily(List.of("network.topology.nvidia.com/block", "network.topology.nvidia.com/spine",
                    "network.topology.nvidia.com/datacenter"), "network.topology.nvidia.com/accelerator"));

    public TopologyConfig {
        labels = labels == null ? TOPOGRAPH : List.copyOf(labels);
    }

    /** Every key at its default. */
    public static TopologyConfig defaults() {
        return new TopologyConfig(null, null);
    }

    /** The YAML binding: a key left out or null is its default. */
    @JsonCreator
    static TopologyConfig bind(@JsonProperty("file") String file, @JsonProperty("labels") List<LabelFamily> labels) {
        return new TopologyConfig(file, labels);
    }

    /**
     * The file to read: {@code file}; else, for the live host, the first topology.conf beside
     * {@code $SLURM_CONF} or in {@link #SLURM_DIRS} that exists; null when none.
     */
    public Path fileToRead(boolean liveHost, String slurmConf) {
        if (NO_FILE.equals(file)) {
            return null;
        }
        if (file != null) {
            return Path.of(file);
        }
        if (!liveHost) {
            return null;
        }
        List<Path> dirs = new ArrayList<>();
        if (slurmConf != null && !slurmConf.isBlank() && Path.of(slurmConf).getParent() != null) {
            dirs.add(Path.of(slurmConf).getParent());
        }
        dirs.addAll(SLURM_DIRS);
        for (Path d : dirs) {
            if (d.resolve("topology.yaml").toFile().exists()) {
                // Slurm reads topology.yaml and ignores topology.conf beside it (topology.conf(5)): so does fabricd
                LOG.info("topology: Slurm's " + d.resolve("topology.yaml") + " is not read by fabricd, and Slurm ignores the "
                        + "topology.conf beside it: set topology.file to a file that says where the hosts sit");
                return null;
            }
            if (d.resolve("topology.conf").toFile().isFile()) {
                return d.resolve("topology.conf");
            }
        }
        return null;
    }

    /** Values a YAML parser accepts but fabricd cannot use. */
    public void validate() {
        if (file != null && file.isBlank()) {
            throw new IllegalArgumentException("topology.file is empty: name the file, or write none for no file");
        }
        for (LabelFamily f : labels) {
            if (f.tiers().isEmpty() || f.tiers().stream().anyMatch(k -> k == null || k.isBlank())
                    || f.accelerator() != null && f.accelerator().isBlank()) {
                throw new IllegalArgumentException("topology.labels: each family needs tiers (the label keys of its switches, the "
                        + "leaf's first) and may name an accelerator key; no key may be empty");
            }
        }
    }

    /**
     * One family of topograph's Node labels.
     *
     * @param tiers       the label keys of the node's switches, the leaf's first
     * @param accelerator the label key of its accelerator (NVLink) domain, or null
     */
    public record LabelFamily(@JsonProperty("tiers") List<String> tiers, @JsonProperty("accelerator") String accelerator) {
        public LabelFamily {
            tiers = tiers == null ? List.of() : List.copyOf(tiers);
        }
    }
}
