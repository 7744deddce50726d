package io.fabricd.agent.fleet;

import io.fabricd.agent.config.AgentConfig;
import io.fabricd.agent.config.ConfigLoader;
import io.fabricd.agent.http.BandwidthApi;
import io.fabricd.agent.http.EndpointSignatures;
import io.fabricd.agent.http.HttpApi;
import io.fabricd.agent.http.PreflightApi;
import io.fabricd.agent.loop.CollectionLoop;
import io.fabricd.agent.loop.Meters;
import io.fabricd.agent.preflight.Preflight;
import io.fabricd.collectors.run.HostCollection;
import io.fabricd.collectors.source.CollectionRunner;
import io.fabricd.collectors.source.HostSource;
import io.fabricd.collectors.source.SnapshotHostSource;
import io.fabricd.exporters.FabricMetrics;
import io.fabricd.http.ConnectionLimits;
import io.fabricd.http.Route;
import io.fabricd.http.Routes;
import io.fabricd.http.ServerSetup;
import io.fabricd.natives.Natives;
import io.fabricd.probes.ProbeConfig;
import io.fabricd.probes.ProbeKey;
import io.fabricd.probes.mesh.ProbeService;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Many agents in one JVM, for tests and benchmarks of the gate ({@code fabricd preflight}) at the
 * scale of a fleet: every node of a {@link FleetPlan} gets its agent's real HTTP server on an address
 * of its own (127.10.x.y: Linux routes all of 127/8 to lo) with the agent's own routes
 * ({@link HttpApi}, {@link BandwidthApi}, {@link PreflightApi}: signed with the probe key, bounded
 * by the http module's limits), and its real UDP probe responder ({@link ProbeService}), answering
 * from its fixture host's findings. What a thousand {@code Agent}s would each hold once is shared:
 * one Vert.x (its event loops and workers), one collection per fixture (the nodes on a fixture
 * answer its one model), one meter registry, one native binding. Per node: its server, its
 * request limits, its responder (a thread of its own, as the real one has), its preflight answers.
 *
 * <p>Faults ({@link FleetPlan.Fault}): a lossy node's responder sits at a second address
 * (127.11.x.y) behind a {@link LossyUdpRelay} at the node's own, the port its endpoint names; a down
 * node's address has nothing listening; a silent node's accepts connections and never reads them.
 */
public final class FleetEmulator implements AutoCloseable {
    /** The agents' configuration: one collection (a snapshot does not change), no pingmesh peers (the gate's rounds alone). */
    private static final String CONFIG = "collection: {interval: 1h}\nprobe:\n  udp_port: 0\n  verbs: false\n  peers: []\n";
    /** Each responder says where it listens at start: a thousand lines for a fleet, warnings and above kept. */
    private static final Logger RESPONDERS = Logger.getLogger(ProbeService.class.getName());
    private static final String NO_BANDWIDTH = "this agent reads a snapshot, not a live host: no bandwidth tests";

    private final Vertx vertx;
    private final Map<String, CollectionLoop> loops = new LinkedHashMap<>();
    private final Map<String, HostSource> sources = new LinkedHashMap<>();
    private final List<AutoCloseable> held = new ArrayList<>();
    private final Map<String, String> addresses = new LinkedHashMap<>();
    private final FleetPlan plan;

    private FleetEmulator(FleetPlan plan, Vertx vertx) {
        this.plan = plan;
        this.vertx = vertx;
    }

    /**
     * Serves every node of {@code plan}, each with its fixture from {@code fixtures}
     * (collectors/src/test/fixtures) and the fabric's key from {@code keyFile}; returns once every
     * agent listens and every fixture was collected.
     */
    public static FleetEmulator start(FleetPlan plan, Path fixtures, Path keyFile) throws IOException {
        AgentConfig config = config(keyFile);
        RESPONDERS.setLevel(Level.WARNING);
        MeterRegistry meters = new SimpleMeterRegistry();
        AgentConfig.Http http = config.http();
        // one bound at accept for the JVM (its transport); the request and connection limits per node below
        ConnectionLimits accept = new ConnectionLimits(0, Integer.MAX_VALUE, http.maxHeadBytes(), 0, Meters.http(meters));
        Vertx vertx = Vertx.builder().withTransport(accept.transport())
                .with(new VertxOptions().setEventLoopPoolSize(2).setWorkerPoolSize(8).setInternalBlockingPoolSize(2)
                        .setBlockedThreadCheckInterval(5000)).build();
        FleetEmulator fleet = new FleetEmulator(plan, vertx);
        try {
            accept.watchUnread(vertx);
            fleet.serve(config, meters, fixtures, ProbeKey.fromFile(keyFile));
        } catch (IOException | RuntimeException e) {
            fleet.close();
            throw e;
        }
        return fleet;
    }

    private void serve(AgentConfig config, MeterRegistry meters, Path fixtures, ProbeKey key) throws IOException {
        Natives natives = Natives.load();
        for (FleetPlan.Node n : plan.nodes()) {
            if (!loops.containsKey(n.fixture())) {
                HostSource source = SnapshotHostSource.open(fixtures.resolve(n.fixture()));
                CollectionLoop loop = new CollectionLoop(source, HostCollection.repeating(config.collectorConfig(),
                        config.collection().identityRefresh(), CollectionRunner.CALLER), new FabricMetrics(config.netdev().allStats()),
                        config.collection().interval(), config.judging(), new SimpleMeterRegistry(), null,
                        config.collectorConfig()::deviceSelected);
                held.add(loop);
                loops.put(n.fixture(), loop);
                sources.put(n.fixture(), source);
                loop.start();
            }
        }
        for (CollectionLoop loop : loops.values()) {
            try {
                if (!loop.awaitFirst(Duration.ofMinutes(2))) {
                    throw new IllegalStateException("a fixture's first collection took more than 2 minutes");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
        int i = 0;
        for (FleetPlan.Node n : plan.nodes()) {
            String host = address(10, i);
            String shadow = address(11, i++);
            if (n.fault() instanceof FleetPlan.Fault.Down) {
                addresses.put(n.name(), host + ":" + freePort(host));
            } else if (n.fault() instanceof FleetPlan.Fault.Silent) {
                addresses.put(n.name(), host + ":" + silent(host));
            } else if (n.fault() instanceof FleetPlan.Fault.LossyUdp l) {
                ProbeService p = node(n, host, shadow, config, meters, key, natives);
                int udp = p.endpoint().udpPort();
                held.add(new LossyUdpRelay(new InetSocketAddress(host, udp), new InetSocketAddress(shadow, udp), l.share()));
            } else {
                node(n, host, host, config, meters, key, natives);
            }
        }
    }

    /** One node's agent: its responder at {@code udpHost}, its HTTP server at {@code host}. */
    private ProbeService node(FleetPlan.Node n, String host, String udpHost, AgentConfig config, MeterRegistry meters, ProbeKey key,
                              Natives natives) throws IOException {
        CollectionLoop loop = loops.get(n.fixture());
        PrometheusRegistry registry = new PrometheusRegistry(); // its /metrics: its responder's and probes' series
        ProbeService p = new ProbeService(probe(config.probe(), n.name(), udpHost), key, udpHost, n::name,
                () -> loop.latest() == null ? Map.of() : loop.latest().model().labels(), registry, natives).start();
        held.add(p);
        EndpointSignatures signed = new EndpointSignatures(p.endpointAuth(), meters);
        Preflight preflight = Preflight.of(config, sources.get(n.fixture()), loop, p, natives, new Semaphore(1), null, () -> null, n::name,
                () -> Optional.of(n.placement()));
        AgentConfig.Http http = config.http();
        ConnectionLimits limits = new ConnectionLimits(http.maxConnections(), http.maxRequests(), http.maxHeadBytes(), 0,
                Meters.http(meters));
        List<Route> routes = new ArrayList<>(new HttpApi(vertx, loop, registry, p).routes(signed));
        routes.addAll(BandwidthApi.routes(vertx, null, signed, NO_BANDWIDTH));
        routes.addAll(PreflightApi.routes(vertx, preflight, signed));
        HttpServerOptions opts = ServerSetup.options(http.idleTimeout(), http.maxHeaderBytes(), http.maxRequestLineBytes(), null);
        HttpServer server = vertx.createHttpServer(opts).connectionHandler(limits.connectionHandler())
                .requestHandler(new Routes(routes, HttpApi::notFound).handler(vertx, limits, signed, Map.of(), Map.of(), Meters.http(meters)))
                .listen(0, host).await();
        addresses.put(n.name(), host + ":" + server.actualPort());
        return p;
    }

    /** {@code p} for one node: its name, its responder's address. */
    private static ProbeConfig probe(ProbeConfig p, String node, String udpHost) {
        return new ProbeConfig(p.keyFile(), p.udpPort(), udpHost, p.endpointTls(), p.verbs(), p.perPeerHistograms(), p.gidIndex(),
                p.responderSpin(), p.responderRate(), p.responderBurst(), p.peers(), p.dns(), p.kubernetes(), node, p.rack(), p.interval(),
                p.jitter(), p.count(), p.sizes(), p.pacing(), p.timeout(), p.crossRack(), p.maxInRack(), p.concurrency(),
                p.endpointRefresh(), p.lossThreshold(), p.latencyThreshold(), p.window());
    }

    private static AgentConfig config(Path keyFile) throws IOException {
        Path f = Files.createTempFile("fabricd-fleet", ".yaml");
        try {
            Files.writeString(f, CONFIG + "  key_file: '" + keyFile + "'\n");
            return ConfigLoader.load(f);
        } finally {
            Files.delete(f);
        }
    }

    /** The {@code i}th address of 127.{@code net}.0.0/16, from 127.net.0.1, 250 to a third octet. */
    static String address(int net, int i) {
        if (i >= 250 * 256) {
            throw new IllegalArgumentException("more than " + 250 * 256 + " nodes");
        }
        return "127." + net + "." + i / 250 + "." + (i % 250 + 1);
    }

    /** A port nothing listens on at {@code host}, for now. */
    private static int freePort(String host) throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(host))) {
            return s.getLocalPort();
        }
    }

    /** A listener that is never accepted from: the kernel completes connections into its backlog, nobody reads them. */
    private int silent(String host) throws IOException {
        ServerSocket s = new ServerSocket(0, 4096, InetAddress.getByName(host));
        held.add(s);
        return s.getLocalPort();
    }

    public FleetPlan plan() {
        return plan;
    }

    /** Each node's agent address HOST:PORT, in the plan's order. */
    public Map<String, String> addresses() {
        return Collections.unmodifiableMap(addresses);
    }

    /** The node set for {@code fabricd preflight --nodes @FILE}: NAME=HOST:PORT a line, in the plan's order. */
    public Path writeNodes(Path file) {
        StringBuilder b = new StringBuilder();
        for (FleetPlan.Node n : plan.nodes()) {
            b.append(n.name()).append('=').append(addresses.get(n.name())).append('\n');
        }
        try {
            return Files.writeString(file, b);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        for (int i = held.size() - 1; i >= 0; i--) {
            try {
                held.get(i).close();
            } catch (Exception e) {
                // closing: the others still close
            }
        }
        vertx.close().await();
    }
}
