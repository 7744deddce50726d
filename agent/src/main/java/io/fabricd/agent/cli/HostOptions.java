package io.fabricd.agent.cli;

import io.fabricd.agent.config.AgentConfig;
import io.fabricd.agent.config.ConfigLoader;
import io.fabricd.agent.demo.DemoHost;
import io.fabricd.collectors.source.HostSource;
import io.fabricd.collectors.source.LiveHostSource;
import io.fabricd.collectors.source.SnapshotHostSource;
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
        return SnapshotHostSource.open(root);
    }

    /** One collection of the host (metrics, diagnose), the live source closed afterwards. */
    public io.fabricd.collectors.model.HostModel collectOnce(AgentConfig cfg) {
        HostSource source = source(cfg);
        try {
            return io.fabricd.collectors.HostCollection.standard(cfg.collectorConfig()).collect(source);
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
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
