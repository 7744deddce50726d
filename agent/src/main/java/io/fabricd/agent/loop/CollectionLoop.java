package io.fabricd.agent.loop;

import io.fabricd.agent.state.InventoryStore;
import io.fabricd.collectors.run.HostCollection;
import io.fabricd.collectors.source.HostSource;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.diagnosis.run.Report;
import io.fabricd.exporters.FabricMetrics;
import io.fabricd.exporters.ModelJson;
import io.fabricd.model.HostModel;
import io.fabricd.model.metrics.AgentMetrics;
import io.fabricd.model.probe.ProbeResults;
import io.fabricd.model.topology.Placement;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Collects the host on a fixed interval on one dedicated thread (never the event loop) and
 * publishes each result: the host model, the checks' findings (against the previous collection, for
 * rates), the Prometheus families, the JSON. Scrapes read only what
 * was published, so any number of concurrent scrapes cause no extra collection.
 */
public final class CollectionLoop implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(CollectionLoop.class.getName());

    /** One collection's published results. The JSON documents are rendered on first request, once. */
    public static final class Published {
        private final HostModel model;
        private final Report report;
        private volatile byte[] json;
        private volatile byte[] findingsJson;

        Published(HostModel model, Report report) {
            this.model = model;
            this.report = report;
        }

        public HostModel model() {
            return model;
        }

        /** interfaces.md's diagnose JSON. */
        public byte[] findingsJson() {
            byte[] j = findingsJson;
            if (j == null) {
                j = report.toJson().getBytes(StandardCharsets.UTF_8);
                findingsJson = j;
            }
            return j;
        }

        public byte[] json() {
            byte[] j = json;
            if (j == null) {
                j = ModelJson.toJson(model);
                json = j;
            }
            return j;
        }
    }

    private final HostSource source;
    private final HostCollection collection;
    private final Duration interval;
    private final Judgement judgement;
    private volatile Supplier<ProbeResults> probeResults = () -> ProbeResults.NONE;
    private volatile Function<HostModel, Optional<Placement>> placement = m -> Optional.empty();
    private final ScheduledExecutorService executor;
    private final CountDownLatch first = new CountDownLatch(1);
    private final Timer timer;
    private final Counter failures;
    private volatile Published latest;
    private boolean saidNoDevices;

    /**
     * @param inventory      where the host's expected inventory is kept; null: in memory only
     * @param deviceSelected the devices the configuration collects (the inventory's others are not expected)
     */
    public CollectionLoop(HostSource source, HostCollection collection, FabricMetrics metrics, Duration interval,
                          DiagnosisConfig diagnosis, MeterRegistry meters, InventoryStore inventory,
                          Predicate<String> deviceSelected) {
        this.source = source;
        this.judgement = new Judgement(inventory, diagnosis, metrics, deviceSelected);
        this.collection = collection;
        this.interval = interval;
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "fabricd-collect");
            t.setDaemon(true);
            return t;
        });
        this.timer = Timer.builder(Meters.name(AgentMetrics.COLLECTION)).description(AgentMetrics.COLLECTION.help()).register(meters);
        this.failures = Counter.builder(Meters.name(AgentMetrics.COLLECTION_FAILURES))
                .description(AgentMetrics.COLLECTION_FAILURES.help()).register(meters);
        Gauge.builder(Meters.name(AgentMetrics.COLLECTION_RUNNING), this, l -> l.running().toNanos() / 1e9)
                .baseUnit(AgentMetrics.COLLECTION_RUNNING.unit()).description(AgentMetrics.COLLECTION_RUNNING.help()).register(meters);
    }

    /** What the probes or the bandwidth tests measured, judged with every collection; each source adds to the others. */
    public synchronized void probeResults(Supplier<ProbeResults> source) {
        Supplier<ProbeResults> before = probeResults;
        this.probeResults = () -> before.get().and(source.get());
    }

    /**
     * Where the host sits, resolved again from each collection before it is judged (off the event
     * loop: the topology file is looked at here, never by a scrape).
     */
    public void placement(Function<HostModel, Optional<Placement>> source) {
        this.placement = source;
    }

    public void start() {
        executor.scheduleAtFixedRate(this::onSchedule, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** When the last scheduled collection started (System.nanoTime), 0 before the first. */
    private long lastStart;

    /**
     * A fixed-rate tick: collects, unless the previous collection started less than half an
     * interval ago. A fixed-rate executor runs the ticks it missed back to back once it can again
     * (the process was stopped with SIGSTOP, the VM paused, the machine suspended): one collection
     * then, not a burst of them, and a log line saying how long the pause was.
     */
    private void onSchedule() {
        long now = System.nanoTime();
        if (lastStart != 0 && now - lastStart < interval.toNanos() / 2) {
            return;
        }
        if (lastStart != 0 && now - lastStart > 3 * interval.toNanos()) {
            LOG.info(String.format("collection resumed after %.1f s without one (the process or machine was paused); "
                    + "the missed collections are skipped, not run back to back", (now - lastStart) / 1e9));
        }
        lastStart = now;
        collectOnce();
    }

    /** Since when (System.nanoTime) the collection in progress runs; 0 while none runs. */
    private volatile long runningSince;
    private Duration stuckAfter = Duration.ofSeconds(60);

    /** How long a running collection may take before it counts as stuck (collection.stuck_after). */
    public CollectionLoop stuckAfter(Duration d) {
        this.stuckAfter = d;
        return this;
    }

    /** How long the collection in progress has run; zero while none runs. */
    public Duration running() {
        long since = runningSince;
        return since == 0 ? Duration.ZERO : Duration.ofNanos(System.nanoTime() - since);
    }

    /** The running collection's age when it is past stuck_after, else null. */
    public Duration stuck() {
        Duration r = running();
        return r.compareTo(stuckAfter) >= 0 ? r : null;
    }

    @SuppressWarnings("PMD.UnusedAssignment") // runningSince is volatile: read by scrapes while the collection runs
    void collectOnce() {
        long t0 = System.nanoTime();
        runningSince = t0;
        try {
            HostModel m = collection.collect(source);
            Report report = judgement.apply(m, probeResults.get(), placement.apply(m).orElse(null));
            latest = new Published(m, report);
            if (m.devices().isEmpty() && !saidNoDevices) {
                saidNoDevices = true;
                LOG.info("no RDMA device in " + (source.describe().endsWith("/") ? source.describe() : source.describe() + "/")
                        + "sys/class/infiniband: serving zero ports");
            } else if (!m.devices().isEmpty()) {
                saidNoDevices = false;
            }
        } catch (RuntimeException e) {
            failures.increment();
            LOG.log(Level.WARNING, "collection failed; serving the previous result", e);
        } finally {
            runningSince = 0;
            Duration took = Duration.ofNanos(System.nanoTime() - t0);
            timer.record(took.toNanos(), TimeUnit.NANOSECONDS);
            if (took.compareTo(stuckAfter) >= 0) {
                LOG.warning(String.format("a collection took %.1f s (collection.stuck_after %s): ready again", took.toMillis() / 1e3,
                        stuckAfter));
            }
            first.countDown();
        }
    }

    /** The latest result; null before the first collection finished. */
    public Published latest() {
        return latest;
    }

    /** A first collection finished and none is stuck now. */
    public boolean ready() {
        return latest != null && stuck() == null;
    }

    /** Waits for the first collection (tests, start-up logging). */
    public boolean awaitFirst(Duration timeout) throws InterruptedException {
        return first.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
