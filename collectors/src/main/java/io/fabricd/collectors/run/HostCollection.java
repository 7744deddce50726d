package io.fabricd.collectors.run;

import io.fabricd.collectors.CollectContext;
import io.fabricd.collectors.CollectorConfig;
import io.fabricd.collectors.Slices;
import io.fabricd.collectors.Stage;
import io.fabricd.collectors.kernel.HostReadException;
import io.fabricd.collectors.lldp.LldpCollector;
import io.fabricd.collectors.netdev.DcbCollector;
import io.fabricd.collectors.netdev.EthtoolCollector;
import io.fabricd.collectors.netdev.NetdevCollector;
import io.fabricd.collectors.pcie.IommuCollector;
import io.fabricd.collectors.pcie.PcieConfigCollector;
import io.fabricd.collectors.rdma.RdmaCollector;
import io.fabricd.collectors.source.CollectionAbandoned;
import io.fabricd.collectors.source.CollectionRunner;
import io.fabricd.collectors.source.HostSource;
import io.fabricd.collectors.source.StableReads;
import io.fabricd.collectors.topology.GpuDirectCollector;
import io.fabricd.collectors.topology.HostFactsCollector;
import io.fabricd.collectors.topology.TopologyCollector;
import io.fabricd.collectors.verbs.PortAttrsCollector;
import io.fabricd.collectors.verbs.QpCollector;
import io.fabricd.model.CollectorRun;
import io.fabricd.model.HostModel;
import io.fabricd.model.ReadError;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Runs the stages over a host, each after the producers of the slices it needs, and builds the
 * immutable {@link HostModel} from their slices ({@link ModelAssembly}).
 */
public final class HostCollection {
    private final List<Stage<?>> stages;
    private final CollectorConfig config;
    private final Clock clock;
    private final StableReads stable;
    private final CollectionRunner runner;

    /** Reads everything on every collection, on the calling thread. */
    public HostCollection(List<? extends Stage<?>> stages, CollectorConfig config, Clock clock) {
        this(stages, config, clock, null, CollectionRunner.CALLER);
    }

    /**
     * @param stable what is kept of the hardware's identity between collections (null: nothing)
     * @param runner where each collection runs (the live source's reader, or the caller)
     */
    public HostCollection(List<? extends Stage<?>> stages, CollectorConfig config, Clock clock, StableReads stable,
                          CollectionRunner runner) {
        this.stages = StageOrder.of(stages);
        this.config = config;
        this.clock = clock;
        this.stable = stable;
        this.runner = runner;
    }

    /** The stages fabricd ships, in the order they are listed in docs (the collection orders them by their needs). */
    public static List<Stage<?>> defaultCollectors() {
        return List.of(new HostFactsCollector(), new RdmaCollector(), new NetdevCollector(), new EthtoolCollector(),
                new DcbCollector(), new PortAttrsCollector(), new QpCollector(), new TopologyCollector(),
                new GpuDirectCollector(), new PcieConfigCollector(), new IommuCollector(), new LldpCollector());
    }

    /**
     * Checks a configuration against the stages fabricd ships: its globs, and that every disabled
     * collector is one of them.
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
        return standard(config, CollectionRunner.CALLER);
    }

    /** {@link #standard} run by {@code runner} (a live source's reader). */
    public static HostCollection standard(CollectorConfig config, CollectionRunner runner) {
        return new HostCollection(defaultCollectors(), config, Clock.systemUTC(), null, runner);
    }

    /**
     * For a loop over the same host, run by {@code runner}: identity facts are kept between
     * collections and read again after {@code refresh} or when the hardware listing changes
     * ({@link StableReads}).
     */
    public static HostCollection repeating(CollectorConfig config, Duration refresh, CollectionRunner runner) {
        return new HostCollection(defaultCollectors(), config, Clock.systemUTC(), new StableReads(refresh, System::nanoTime), runner);
    }

    public synchronized HostModel collect(HostSource source) {
        return runner.run(() -> collectHere(stable == null ? source : stable.over(source), source));
    }

    private HostModel collectHere(HostSource reads, HostSource source) {
        Instant started = clock.instant();
        Map<Class<?>, Object> slices = new HashMap<>();
        List<CollectorRun> runs = new ArrayList<>();
        for (Stage<?> s : stages) {
            if (!config.runs(s.name())) {
                continue;
            }
            CollectContext ctx = new CollectContext(reads, config);
            long t0 = System.nanoTime();
            boolean ok = true;
            try {
                Object slice = s.collect(ctx, Slices.forStage(slices, s));
                if (slice != null) {
                    slices.put(s.produces(), slice);
                }
            } catch (RuntimeException | Error e) {
                // a bug, a native library that cannot load (LinkageError) or a JNA call that fails
                // (JNA throws java.lang.Error) fails its stage, never the collection: its slice is
                // absent and the stages that need it run without; what stops the JVM or the whole
                // collection is let through
                if (e instanceof CollectionAbandoned || e instanceof VirtualMachineError && !(e instanceof StackOverflowError)) {
                    throw e;
                }
                ok = false;
                ctx.error("", "collector failed: " + e);
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            List<ReadError> errors = ctx.errors();
            ok = ok && errors.stream().noneMatch(e -> e.error().startsWith(CollectContext.FATAL));
            runs.add(new CollectorRun(s.name(), ok, seconds, errors));
        }
        return ModelAssembly.build(hostname(source), source, started, slices, runs);
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
