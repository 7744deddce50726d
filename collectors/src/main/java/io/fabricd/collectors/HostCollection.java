package io.fabricd.collectors;

import io.fabricd.model.CollectorRun;
import io.fabricd.model.HostModel;
import io.fabricd.model.ReadError;
import io.fabricd.collectors.netdev.DcbCollector;
import io.fabricd.collectors.netdev.EthtoolCollector;
import io.fabricd.collectors.netdev.NetdevCollector;
import io.fabricd.collectors.pcie.IommuCollector;
import io.fabricd.collectors.pcie.PcieConfigCollector;
import io.fabricd.collectors.rdma.RdmaCollector;
import io.fabricd.collectors.source.CollectionAbandoned;
import io.fabricd.collectors.source.HostReadException;
import io.fabricd.collectors.source.HostSource;
import io.fabricd.collectors.topology.GpuDirectCollector;
import io.fabricd.collectors.topology.HostFactsCollector;
import io.fabricd.collectors.topology.TopologyCollector;
import io.fabricd.collectors.verbs.PortAttrsCollector;
import io.fabricd.collectors.verbs.QpCollector;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** Runs every collector over a host and assembles the immutable {@link HostModel}. */
public final class HostCollection {
    private final List<Collector> collectors;
    private final CollectorConfig config;
    private final Clock clock;
    private final StableFacts stable;

    /** Reads everything on every collection (nothing kept between collections). */
    public HostCollection(List<Collector> collectors, CollectorConfig config, Clock clock) {
        this(collectors, config, clock, StableFacts.none());
    }

    /** Keeps the hardware's identity between collections in {@code stable} (the agent's loop). */
    public HostCollection(List<Collector> collectors, CollectorConfig config, Clock clock, StableFacts stable) {
        this.collectors = List.copyOf(collectors);
        Set<String> before = new TreeSet<>();
        for (Collector c : this.collectors) {
            for (String n : c.needs()) {
                if (!before.contains(n) && this.collectors.stream().anyMatch(o -> o.name().equals(n))) {
                    throw new IllegalArgumentException("collector " + c.name() + " reads " + n + "'s results: " + n + " must run first");
                }
            }
            before.add(c.name());
        }
        this.config = config;
        this.clock = clock;
        this.stable = stable;
    }

    /**
     * The collectors fabricd ships, in the order they run: each after those it {@link Collector#needs}
     * (host; rdma; netdev after rdma; ethtool, dcb after netdev; verbs after rdma and netdev; qp,
     * topology after rdma; gpudirect after topology).
     */
    public static List<Collector> defaultCollectors() {
        return List.of(new HostFactsCollector(), new RdmaCollector(), new NetdevCollector(), new EthtoolCollector(),
                new DcbCollector(), new PortAttrsCollector(), new QpCollector(), new TopologyCollector(),
                new GpuDirectCollector(), new PcieConfigCollector(), new IommuCollector());
    }

    /**
     * Checks a configuration against the collectors fabricd ships: its globs, and that every
     * disabled collector is one of them.
     */
    public static void validate(CollectorConfig config) {
        config.validateGlobs();
        Set<String> known = new TreeSet<>();
        defaultCollectors().forEach(c -> known.add(c.name()));
        for (String d : new TreeSet<>(config.disabledCollectors())) {
            if (!known.contains(d)) {
                throw new IllegalArgumentException("unknown collector '" + d + "' in collection.disabled_collectors; known: "
                        + String.join(", ", known));
            }
        }
    }

    /** One collection, or several that each read everything (CLI commands, snapshots). */
    public static HostCollection standard(CollectorConfig config) {
        return new HostCollection(defaultCollectors(), config, Clock.systemUTC());
    }

    /**
     * For a loop over the same host: identity facts are kept between collections and read again
     * after {@code refresh} or when the hardware listing changes ({@link StableFacts}).
     */
    public static HostCollection repeating(CollectorConfig config, Duration refresh) {
        return new HostCollection(defaultCollectors(), config, Clock.systemUTC(), new StableFacts(refresh, System::nanoTime));
    }

    public synchronized HostModel collect(HostSource source) {
        // a live host runs it on its reader thread (reads without a hand-off each, still bounded)
        return source.collecting(() -> collectHere(source));
    }

    private HostModel collectHere(HostSource source) {
        Instant started = clock.instant();
        stable.begin();
        HostModelBuilder builder = new HostModelBuilder();
        List<CollectorRun> runs = new ArrayList<>();
        for (Collector c : collectors) {
            if (!config.runs(c.name())) {
                continue;
            }
            CollectContext ctx = new CollectContext(source, config, builder, stable);
            long t0 = System.nanoTime();
            boolean ok = true;
            try {
                c.collect(ctx);
            } catch (RuntimeException | Error e) {
                // a bug, a native library that cannot load (LinkageError) or a JNA call that fails
                // (JNA throws java.lang.Error) fails its collector, never the collection; what
                // stops the JVM or the whole collection is let through
                if (e instanceof CollectionAbandoned || e instanceof VirtualMachineError && !(e instanceof StackOverflowError)) {
                    throw e;
                }
                ok = false;
                ctx.error("", "collector failed: " + e);
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            List<ReadError> errors = ctx.errors();
            ok = ok && errors.stream().noneMatch(e -> e.error().startsWith(CollectContext.FATAL));
            runs.add(new CollectorRun(c.name(), ok, seconds, errors));
        }
        return new HostModel(hostname(source), source.describe(), started,
                source.manifest().map(m -> m.labels()).orElse(Map.of()), builder.hostFacts(), builder.devices(), builder.netdevs(),
                builder.portAttrs(), builder.qps(), builder.pci(), builder.paths(), builder.gpuDirect(), builder.pcieConfig(),
                builder.iommu(), runs);
    }


    /** The host's name: the snapshot manifest's, else proc/sys/kernel/hostname, else the OS's ("unknown" for a snapshot without). */
    public static String hostname(HostSource source) {
        if (source.manifest().isPresent() && source.manifest().get().hostname() != null) {
            return source.manifest().get().hostname();
        }
        try {
            String h = source.readLine("proc/sys/kernel/hostname").strip();
            if (!h.isEmpty()) {
                return h;
            }
        } catch (HostReadException e) {
            // fall through
        }
        if (source.isSnapshot()) {
            return "unknown";
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "unknown";
        }
    }
}
