package io.fabricd.agent.cli;

import io.fabricd.agent.state.InventoryStore;
import io.fabricd.diagnosis.inventory.Inventory;

import io.fabricd.agent.config.AgentConfig;
import io.fabricd.agent.config.ConfigLoader;
import io.fabricd.agent.demo.DemoHost;
import io.fabricd.collectors.HostCollection;
import io.fabricd.collectors.model.HostModel;
import io.fabricd.collectors.source.HostSource;
import io.fabricd.collectors.source.LiveHostSource;
import io.fabricd.collectors.source.SnapshotHostSource;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The options every command that reads a host shares: where the host is, and the config file. */
public final class HostOptions {
    @Option(names = "--root", paramLabel = "DIR",
            description = "Read the host from a snapshot folder instead of / (see docs/fixtures.md).")
    Path root;

    @Option(names = "--config", paramLabel = "FILE", description = "YAML configuration (docs/configuration.md).")
    Path config;

    @Option(names = "--demo", description = "Read the bundled demo host; its counters advance over time.")
    boolean demo;

    @Option(names = "--state-dir", paramLabel = "DIR",
            description = "Where the host's expected inventory is kept (default: the config's state_dir, else /var/lib/fabricd "
                    + "for the live host; none for --root and --demo).")
    Path stateDir;

    /**
     * The state folder: --state-dir, the config's state_dir, else /var/lib/fabricd for the live host;
     * null for a snapshot or the demo without either.
     */
    public Path stateDir(AgentConfig cfg) {
        if (stateDir != null) {
            return stateDir;
        }
        if (cfg.stateDir != null && !cfg.stateDir.isBlank()) {
            return Path.of(cfg.stateDir);
        }
        return demo || snapshotRoot() != null ? null : InventoryStore.DEFAULT_DIR;
    }

    /**
     * The stored inventory a one-shot command judges against, read only; null when there is none. A
     * file that is not an inventory is said on {@code err} and judged without.
     */
    public Inventory storedInventory(AgentConfig cfg, PrintWriter err) {
        Path dir = stateDir(cfg);
        if (dir == null) {
            return null;
        }
        try {
            return new InventoryStore(dir).load().orElse(null);
        } catch (IllegalArgumentException e) {
            err.println("fabricd: " + e.getMessage() + " (judged without an inventory)");
            err.flush();
            return null;
        }
    }

    public AgentConfig config() {
        return ConfigLoader.load(config);
    }

    /** The host to read; IllegalArgumentException with a clear message when it cannot be used. */
    public HostSource source(AgentConfig cfg) {
        if (demo && root != null) {
            throw new IllegalArgumentException("--demo and --root exclude each other");
        }
        if (demo) {
            return DemoHost.open();
        }
        if (root == null || isFilesystemRoot(root)) {
            return new LiveHostSource(cfg.collection.readTimeout);
        }
        if (!Files.isDirectory(root)) {
            throw new IllegalArgumentException("--root " + root + " is not a folder");
        }
        if (!Files.exists(root.resolve("fabricd-snapshot.json")) && !Files.isDirectory(root.resolve("sys"))
                && !Files.isDirectory(root.resolve("proc"))) {
            // an empty folder, a typo'd path, a folder one level too high: zero ports would look like a healthy host
            throw new IllegalArgumentException("--root " + root + " is not a snapshot folder: it has no fabricd-snapshot.json, "
                    + "sys/ or proc/ (docs/fixtures.md)");
        }
        return SnapshotHostSource.open(root);
    }

    /**
     * One collection of the host (metrics, diagnose), the live source closed afterwards. A host
     * without RDMA devices is no error, but it is said on {@code err}: zero ports must not pass for
     * a healthy host unnoticed.
     */
    public HostModel collectOnce(AgentConfig cfg, PrintWriter err) {
        HostSource source = source(cfg);
        try {
            HostModel m = HostCollection.standard(cfg.collectorConfig()).collect(source);
            if (m.devices().isEmpty()) {
                String where = source.describe().endsWith("/") ? source.describe() : source.describe() + "/";
                err.println("fabricd: no RDMA device in " + where + "sys/class/infiniband"
                        + (cfg.collectorConfig().equals(new AgentConfig().collectorConfig()) ? "" : " (or none selected by the config)")
                        + ": nothing to report for RDMA ports");
                err.flush();
            }
            return m;
        } finally {
            if (source instanceof LiveHostSource live) {
                live.close();
            }
        }
    }

    /** The snapshot folder read, or null for the live host and the demo. */
    public Path snapshotRoot() {
        return demo || root == null || isFilesystemRoot(root) ? null : root;
    }

    private static boolean isFilesystemRoot(Path p) {
        try {
            return p.toRealPath().getParent() == null;
        } catch (IOException e) {
            return false;
        }
    }
}
