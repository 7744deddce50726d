package io.fabricd.agent;

import io.fabricd.agent.loop.CollectionLoop;
import io.fabricd.agent.config.AgentConfig;
import io.fabricd.collectors.source.HostSource;
import io.fabricd.model.RdmaDevice;
import io.fabricd.natives.VerbsShim;
import io.fabricd.probes.ProbeKey;
import io.fabricd.probes.bandwidth.BandwidthClient;
import io.fabricd.probes.bandwidth.BandwidthMetrics;
import io.fabricd.probes.bandwidth.BandwidthSchedule;
import io.fabricd.probes.bandwidth.BandwidthServer;
import io.fabricd.probes.bandwidth.Ceiling;
import io.fabricd.probes.bandwidth.VerbsRc;
import io.fabricd.probes.mesh.ProbeService;
import io.fabricd.probes.peers.EndpointClient;
import io.fabricd.probes.verbs.VerbsPorts;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.fabricd.model.probe.ProbeResults;
import io.fabricd.probes.bandwidth.BandwidthResult;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * The agent's side of bandwidth tests (docs/bandwidth.md): the server of tests peers run into this
 * host, the slow schedule of tests this agent runs to its planned peers, and their metrics and
 * findings.
 */
final class BandwidthServing implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(BandwidthServing.class.getName());
    /** Neither a server nor a schedule: the paths answer {@link #off}'s reason. */
    static final BandwidthServing NONE = new BandwidthServing(null, null);

    private final BandwidthServer server;
    private final ScheduledExecutorService scheduler;

    private BandwidthServing(BandwidthServer server, ScheduledExecutorService scheduler) {
        this.server = server;
        this.scheduler = scheduler;
    }

    /** The server of tests into this host; null when it serves none. */
    BandwidthServer server() {
        return server;
    }

    /**
     * On a live host with the verbs shim (the caller has the probe key): the server when
     * bandwidth.serve is on, the schedule when bandwidth.interval is set, their metrics registered
     * and their results judged with the loop's collections; {@link #NONE} when neither runs ({@link #off} says why).
     */
    static BandwidthServing start(AgentConfig config, HostSource source, CollectionLoop loop, PrometheusRegistry registry,
                                  ProbeService probes, VerbsShim verbs, EndpointClient endpoints, Supplier<String> hostname,
                                  Semaphore writes) {
        AgentConfig.Bandwidth b = config.bandwidth();
        if (!b.serve() && b.interval().isZero() || source.isSnapshot() || verbs.rcUnavailable() != null) {
            return NONE;
        }
        Function<String, VerbsPorts.Port> ports = ports(config.probe().gidIndex());
        Supplier<Ceiling.Local> local = () -> Ceiling.Local.of(loop.latest() == null ? null : loop.latest().model());
        BandwidthServer server = null;
        if (b.serve()) {
            server = new BandwidthServer(new BandwidthServer.Limits(b.maxDuration(), b.maxBufferBytes(), b.maxQps(), b.minInterval()), ports, local,
                    (port, size, qps, depth) -> new VerbsRc(verbs, port.device(), port.port(), port.gidIndex(), size, qps, depth), System::currentTimeMillis);
            LOG.info("serving RDMA bandwidth tests to peers with the probe key (at most " + b.maxDuration().toSeconds() + " s and "
                    + (b.maxBufferBytes() >> 20) + " MiB each, one at a time)");
        }
        BandwidthSchedule schedule = null;
        ScheduledExecutorService scheduler = null;
        if (!b.interval().isZero()) {
            BandwidthClient client = new BandwidthClient(verbs, endpoints, hostname.get());
            BandwidthSchedule.Runner one = (peer, port, l, o) -> {
                // the agent's one slot for tests it writes, shared with the preflight gate's
                if (!writes.tryAcquire()) {
                    throw new IOException("another bandwidth test from this agent is running");
                }
                try {
                    return client.run(peer, port, l, o);
                } finally {
                    writes.release();
                }
            };
            schedule = new BandwidthSchedule(probes::planned, () -> ports.apply(null), local, one,
                    new BandwidthClient.Options(null, b.size(), b.duration(), b.qps(), false, false));
            scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "fabricd-bandwidth-schedule");
                t.setDaemon(true);
                return t;
            });
            // the first after one interval: the probe plan is known by then
            scheduler.scheduleWithFixedDelay(schedule, b.interval().toMillis(), b.interval().toMillis(), TimeUnit.MILLISECONDS);
            LOG.info("testing the bandwidth to the next planned peer every " + b.interval().toSeconds() + " s (bandwidth.interval)");
        }
        BandwidthServer s = server;
        BandwidthSchedule sch = schedule;
        serve(() -> Stream.concat(s == null ? Stream.<BandwidthResult>empty() : s.results().values().stream(),
                sch == null ? Stream.<BandwidthResult>empty() : sch.results().values().stream()).toList(), loop, registry);
        return new BandwidthServing(server, scheduler);
    }

    /** The ACTIVE port of a device of this host (null: the first), sending from GID {@code gid} when given; null when none. */
    static Function<String, VerbsPorts.Port> ports(Integer gid) {
        Path sys = Path.of("/sys");
        return device -> VerbsPorts.discover(sys).stream()
                .filter(p -> device == null || p.device().equals(device)).findFirst()
                .map(p -> gid == null ? p : new VerbsPorts.Port(p.device(), p.port(), gid, p.linkLayer())).orElse(null);
    }

    @Override
    public void close() {
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
        if (server != null) {
            server.close();
        }
    }

    /**
     * The demo's bandwidth results, planted as its faults are: two tests from the start of the
     * agent, against the ceilings of the demo's own ports — one at 93 % of its ceiling, one at 55 %
     * (bandwidth_low, FabricBandwidthLow), so that the metrics, the finding, the alert and the
     * dashboard panel show on the demo.
     */
    static void demo(CollectionLoop loop, PrometheusRegistry registry) {
        long at = System.currentTimeMillis();
        Supplier<Collection<BandwidthResult>> planted = () -> {
            CollectionLoop.Published p = loop.latest();
            if (p == null) {
                return List.of();
            }
            Ceiling.Local local = Ceiling.Local.of(p.model());
            List<BandwidthResult> out = new ArrayList<>();
            List<RdmaDevice> devices = p.model().devices();
            double[] shares = {0.93, 0.55};
            String[][] who = {{"demo-peer-1", "tx"}, {"demo-peer-2", "rx"}};
            for (int i = 0; i < 2 && i < devices.size(); i++) {
                RdmaDevice d = devices.get(i == 0 ? 0 : devices.size() - 1);
                Double link = d.ports().isEmpty() ? null : local.linkBps(d.name(), d.ports().get(0).port());
                Ceiling c = new Ceiling(link, local.pcieBps(d.name()), local.pcieBps(d.name()));
                if (c.bps() == null) {
                    continue;
                }
                long nanos = 5_000_000_000L;
                long bytes = (long) (c.bps() * shares[i] / 8 * 5) / 65_536 * 65_536;
                out.add(new BandwidthResult(who[i][0], d.name(), d.name(), who[i][1], 65_536, 1, bytes, bytes / 65_536, nanos, c.bps(),
                        c.limit(), at));
            }
            return out;
        };
        serve(planted, loop, registry);
    }

    /** The results as fabric_bandwidth_* families, and to bandwidth_low with every collection. */
    private static void serve(Supplier<Collection<BandwidthResult>> results, CollectionLoop loop, PrometheusRegistry registry) {
        BandwidthMetrics.register(registry, results);
        loop.probeResults(() -> new ProbeResults(List.of(), List.of(),
                results.get().stream().map(BandwidthResult::measured).toList()));
    }

    /** Why this agent serves no bandwidth tests (the answer to a peer that asks). */
    static String off(AgentConfig config, HostSource source, ProbeKey key, VerbsShim verbs) {
        if (key == null) {
            return "bandwidth tests are off on this agent: no probe key (probe.key_file or " + ProbeKey.ENV + ")";
        }
        if (!config.bandwidth().serve()) {
            return "this agent serves no bandwidth tests (bandwidth.serve: false)";
        }
        if (source.isSnapshot()) {
            return "this agent reads a snapshot, not a live host: no bandwidth tests";
        }
        String why = verbs.rcUnavailable();
        return why != null ? "no bandwidth tests here: " + why : "bandwidth tests are off on this agent";
    }
}
