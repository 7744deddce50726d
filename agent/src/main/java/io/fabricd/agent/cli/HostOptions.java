package io.fabricd.agent.cli;

import io.fabricd.agent.config.AgentConfig;
import io.fabricd.agent.config.ConfigLoader;
import io.fabricd.agent.demo.DemoHost;
import io.fabricd.agent.state.InventoryStore;
import io.fabricd.collectors.run.HostCollection;
import io.fabricd.collectors.source.CollectionRunner;
import io.fabricd.collectors.source.HostSource;
import io.fabricd.collectors.source.LiveHostSource;
import io.fabricd.collectors.source.SnapshotHostSource;
import io.fabricd.diagnosis.inventory.Inventory;
import io.fabricd.model.HostModel;
import io.fabricd.model.topology.Placement;
import io.fabricd.natives.Natives;
import io.fabricd.topology.HostPlacement;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** The options every command that reads a host shares: where the host is, and the config file. */
public final class HostOptions {
    @Option(names = "--root", paramLabel = "DIR",
            description = "Read the host from a snapshot folder instead of / (see docs/fixtures.md).")
    Path root;

    @Option(names = "--config", paramLabel = "FILE", description = "YAML configuration (docs/configuration.md).")
    Path config;

    @Option(names = "--demo", description = "Read the bundled demo host; its counters advance over time.")
    boolean demo;

    /** The command these options are part of: where its output and messages go. */
    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    @Option(names = "--state-dir", paramLabel = "DIR",
            description = "Where the host's expected inventory is kept (default for the live host: the config's state_dir, else "
                    + "/var/lib/fabricd; none for --root and --demo).")
    Path stateDir;

    /**
     * The state folder: --state-dir; for the live host the config's state_dir, else /var/lib/fabricd;
     * null for a snapshot or the demo without --state-dir.
     */
    public Path stateDir(AgentConfig cfg) {
        if (stateDir != null) {
            return stateDir;
        }
        if (demo || snapshotRoot() != null) {
            // the configuration's state folder is the live host's: a snapshot or the demo never
            // reads or writes it unless --state-dir says so
            return null;
        }
        return cfg.stateDir() != null && !cfg.stateDir().isBlank() ? Path.of(cfg.stateDir()) : InventoryStore.DEFAULT_DIR;
    }

    /**
     * The stored inventory a one-shot command judges {@code m} against, read only, as a running
     * agent would hold it after this collection (grown by it), without the devices the configuration
     * does not collect; null when there is none (said on {@code err} when --state-dir named the
     * folder). IllegalArgumentException (exit 2) when the file cannot be used: a preflight must not
     * pass because its expectations could not be read.
     */
    public Inventory storedInventory(AgentConfig cfg, HostModel m, PrintWriter err) {
        Path dir = stateDir(cfg);
        if (dir == null) {
            return null;
        }
        InventoryStore store = InventoryStore.forCommand(dir);
        Inventory inv;
        try {
            inv = store.load().orElse(null);
        } catch (InventoryStore.AccessDenied e) {
            throw refused(e, "fabricd diagnose");  // the file is fine: nothing to move aside
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage() + ": hardware that is gone cannot be judged. Move the file aside and run "
                    + "`fabricd inventory accept` (or let the agent learn the host anew)");
        }
        if (inv == null && stateDir != null) {
            err.println("fabricd: no inventory in " + dir + ": hardware that is gone is not judged (the agent learns one at its first "
                    + "start; `fabricd inventory accept` stores one)");
            err.flush();
        }
        return inv == null ? null : inv.learn(m).selected(cfg.collectorConfig()::deviceSelected);
    }

    /**
     * The stored inventory could not be read for want of a privilege: what to do about that, said
     * once (the file is fine; moving it aside would lose it).
     */
    static IllegalArgumentException refused(InventoryStore.AccessDenied e, String command) {
        String advice = Privilege.advice(command, Privilege.Access.READ);
        return new IllegalArgumentException(e.getMessage() + (advice == null ? "" : "; " + advice));
    }

    PrintWriter out() {
        return command.commandLine().getOut();
    }

    PrintWriter err() {
        return command.commandLine().getErr();
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
            return new LiveHostSource(Path.of("/"), cfg.collection().readTimeout(), Natives.load());
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
            HostModel m = HostCollection.standard(cfg.collectorConfig(),
                    source instanceof LiveHostSource live ? live.runner() : CollectionRunner.CALLER).collect(source);
            if (m.devices().isEmpty()) {
                String where = source.describe().endsWith("/") ? source.describe() : source.describe() + "/";
                err.println("fabricd: no RDMA device in " + where + "sys/class/infiniband"
                        + (cfg.collectorConfig().equals(AgentConfig.defaults().collectorConfig()) ? "" : " (or none selected by the config)")
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

    /**
     * Where the host sits, as the agent would place it: its topology file (Slurm's by default on the
     * live host) and its rack label (probe.rack, else the host labels rack, else tor); no Kubernetes
     * Node labels, which only the agent reads. A bad file is logged and places nothing.
     */
    public Optional<Placement> placement(AgentConfig cfg, HostModel m) {
        Map<String, String> labels = m.labels();
        String rack = cfg.probe().rack() != null ? cfg.probe().rack() : labels.getOrDefault("rack", labels.get("tor"));
        return new HostPlacement(cfg.topology(), cfg.topology().fileToRead(liveHost(), System.getenv("SLURM_CONF")),
                () -> cfg.nodeName(m.hostname()), Map::of, () -> rack).refresh();
    }

    /** Whether the live host is read (not a snapshot, not the demo): its own files, such as Slurm's topology.conf, are its. */
    public boolean liveHost() {
        return !demo && snapshotRoot() == null;
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
