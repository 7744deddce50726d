package io.fabricd.topology;

import io.fabricd.model.topology.Placement;
import io.fabricd.model.topology.Topology;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * This host's placement, from one place: its topology file (read again when it changes), its
 * Kubernetes Node's labels and its rack label, resolved by {@link PlacementResolver}. A file or a
 * label that cannot be used is said once in the log and places nothing; it never stops the agent and
 * never gives a wrong placement.
 */
public final class HostPlacement {
    private static final Logger LOG = Logger.getLogger(HostPlacement.class.getName());

    private final TopologyConfig config;
    private final Path file;
    private final Supplier<String> node;
    private final Supplier<Map<String, String>> nodeLabels;
    private final Supplier<String> rack;
    /** This host's placement in the file, as last read; the rest of the file is not kept. */
    private Optional<Placement> filed = Optional.empty();
    /** The node name the file was last read for. */
    private String readFor;
    private volatile Optional<Placement> latest = Optional.empty();
    /** The file's modification time and size when last read; null before. */
    private String readVersion;
    /** The latest label problem logged: said once, not at every scrape. */
    private String lastProblem;

    /**
     * @param config     the topology: section
     * @param file       the file to read ({@link TopologyConfig#fileToRead}), or null
     * @param node       this node's name
     * @param nodeLabels its Kubernetes Node's labels (empty when unknown)
     * @param rack       its rack label, or null
     */
    public HostPlacement(TopologyConfig config, Path file, Supplier<String> node, Supplier<Map<String, String>> nodeLabels,
                         Supplier<String> rack) {
        this.config = config;
        this.file = file;
        this.node = node;
        this.nodeLabels = nodeLabels;
        this.rack = rack;
    }

    /** The file read, or null. */
    public Path file() {
        return file;
    }

    /** Where this host sat at the latest {@link #refresh()}; empty when no source knew, or before. Never reads. */
    public Optional<Placement> placement() {
        return latest;
    }

    /**
     * Resolves where this host sits now (the file looked at, read again when it changed) and keeps it
     * for {@link #placement()}: called with each collection, off the event loop, so that a scrape
     * never touches the file.
     */
    public synchronized Optional<Placement> refresh() {
        String name = node.get();
        Optional<Placement> labelled = Optional.empty();
        try {
            labelled = TopographLabels.placement(name, nodeLabels.get(), config.labels());
        } catch (IllegalArgumentException e) {
            once("topology: " + e.getMessage());
        }
        latest = PlacementResolver.resolve(name, filePlacement(name), labelled, rack.get());
        return latest;
    }

    /**
     * This host's placement in the file, read again when its time or size, or the host's name,
     * changed; empty when the file cannot be used or does not name the host (said once in the log).
     */
    private Optional<Placement> filePlacement(String name) {
        if (file == null) {
            return Optional.empty();
        }
        String version;
        try {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
            version = a.lastModifiedTime() + "/" + a.size();
        } catch (IOException e) {
            version = "unreadable";
        }
        if (!version.equals(readVersion) || !Objects.equals(name, readFor)) {
            readVersion = version;
            readFor = name;
            filed = Optional.empty();
            try {
                Topology topology = TopologyFiles.read(file);
                LOG.info("topology: " + file + ": " + topology.placements().size() + " nodes, " + topology.switches().size() + " switches");
                filed = PlacementResolver.inFile(name, topology);
                if (filed.isEmpty()) {
                    LOG.warning("topology: this host (" + name + ") is not in " + file + ": the file places it nowhere; add it to the "
                            + "file, by the name the host goes by (case and domain play no part)");
                }
            } catch (TopologyFileException e) {
                LOG.warning("topology file " + e.getMessage() + "; the file places no node until it is corrected (the agent goes on)");
            } catch (IllegalArgumentException e) { // named twice, without case and domain
                LOG.warning("topology: " + file + ": " + e.getMessage());
            }
        }
        return filed;
    }

    private void once(String problem) {
        if (!Objects.equals(problem, lastProblem)) {
            lastProblem = problem;
            LOG.warning(problem);
        }
    }
}
