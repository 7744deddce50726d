package io.fabricd.agent;

import io.fabricd.agent.loop.CollectionLoop;
import io.fabricd.agent.loop.Meters;
import io.fabricd.agent.state.InventoryStore;
import io.fabricd.agent.state.NodeNameLock;
import io.fabricd.probes.ProbeKey;
import io.fabricd.probes.mesh.ProbeService;
import io.fabricd.probes.peers.EndpointClient;
import io.fabricd.probes.peers.KubernetesProbeKey;

import io.fabricd.agent.cli.Version;
import io.fabricd.agent.config.AgentConfig;
import io.fabricd.agent.config.ListenAddress;
import io.fabricd.agent.config.WebConfig;
import io.fabricd.agent.demo.SimulatedHostSource;
import io.fabricd.agent.http.BandwidthApi;
import io.fabricd.agent.http.EndpointSignatures;
import io.fabricd.agent.http.HttpApi;
import io.fabricd.agent.http.PreflightApi;
import io.fabricd.agent.preflight.Preflight;
import io.fabricd.collectors.run.HostCollection;
import io.fabricd.collectors.source.CollectionRunner;
import io.fabricd.collectors.source.HostSource;
import io.fabricd.collectors.source.LiveHostSource;
import io.fabricd.exporters.FabricMetrics;
import io.fabricd.exporters.PlacementMetrics;
import io.fabricd.http.ConnectionLimits;
import io.fabricd.http.Route;
import io.fabricd.http.Routes;
import io.fabricd.http.ServerSetup;
import io.fabricd.http.TlsKeyPair;
import io.fabricd.http.TlsReload;
import io.fabricd.model.metrics.AgentMetrics;
import io.fabricd.model.topology.Placement;
import io.fabricd.natives.Natives;
import io.fabricd.topology.HostPlacement;
import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.instrumentation.jvm.JvmBufferPoolMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmClassLoadingMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmCompilationMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmGarbageCollectorMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmMemoryMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmMemoryPoolAllocationMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmRuntimeInfoMetric;
import io.prometheus.metrics.instrumentation.jvm.JvmThreadsMetrics;
import io.prometheus.metrics.instrumentation.jvm.ProcessMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.io.IOException;
import java.nio.channels.UnsupportedAddressTypeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.logging.Logger;

/**
 * {@code fabricd run}: one Prometheus registry shared by fabricd's families, client_java's JVM
 * metrics (the only JVM metrics), and Micrometer (fabricd's self metrics);
 * a collection loop; a Vert.x HTTP server.
 */
public final class Agent implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(Agent.class.getName());

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final PrometheusMeterRegistry meters;
    private final CollectionLoop loop;
    private final ListenAddress listen;
    private final HostSource source;
    /** The host's name when the agent started, until a collection reads it. */
    private final String startHostname;
    private final AgentConfig config;
    private final ProbeKey probeKey;
    /** libc and the verbs shim, loaded once here and handed to the probes and bandwidth tests. */
    private final Natives natives = Natives.load();
    /** TLS and basic auth; null: plain HTTP for everyone. */
    private final WebConfig web;
    private ProbeService probes;
    private BandwidthServing bandwidth = BandwidthServing.NONE;
    /** The one slot for the bandwidth tests this agent writes: its schedule's and the preflight gate's. */
    private final Semaphore writes = new Semaphore(1);
    /** What the job gate asks (fabricd preflight); null when probing is off. */
    private Preflight preflight;
    private Vertx vertx;
    private HttpServer server;
    private final FabricMetrics fabric;
    /** Where this host sits in the fabric (docs/topology.md), for its metrics, its probe rack and the preflight gate. */
    private final HostPlacement placement;
    /** The host labels of the collection being judged: the rack label the placement falls back on. */
    private volatile Map<String, String> hostLabels = Map.of();
    /** Where the node name's lock is taken (NodeNameLock); null: not at all. */
    private Path nodeLockDir;
    private NodeNameLock nodeLock;
    /** How often the TLS files are looked at for a renewal (TlsReload). */
    private Duration tlsReloadEvery = Duration.ofMillis(TlsReload.PERIOD_MS);
    /** The bytes of answers clients leave unread held at most (ConnectionLimits); 0: from the heap. */
    private long unreadBudget;
    private ConnectionLimits bounds;

    public Agent(HostSource source, AgentConfig config, ListenAddress listen) {
        this.source = source;
        this.listen = listen;
        this.config = config;
        this.startHostname = HostCollection.hostname(source);
        this.probeKey = KubernetesProbeKey.resolve(config.probe());
        this.web = config.http().webConfigFile() == null ? null : WebConfig.load(Path.of(config.http().webConfigFile()));
        fabric = new FabricMetrics(config.netdev().allStats());
        registry.register(fabric);
        placement = new HostPlacement(config.topology(), config.topology().fileToRead(source instanceof LiveHostSource,
                System.getenv("SLURM_CONF")), this::nodeName, () -> probes == null ? Map.of() : probes.nodeLabels(), this::rack);
        registry.register(new PlacementMetrics(placement::placement));
        registerJvmMetrics(registry);
        meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT, registry, Clock.SYSTEM);
        loop = new CollectionLoop(source, HostCollection.repeating(config.collectorConfig(), config.collection().identityRefresh(),
                source instanceof LiveHostSource live ? live.runner() : CollectionRunner.CALLER), fabric,
                config.collection().interval(), config.judging(), meters,
                config.stateDir() == null ? null : new InventoryStore(Path.of(config.stateDir())), config.collectorConfig()::deviceSelected)
                .stuckAfter(config.collection().stuckAfter());
        Gauge.builder(Meters.name(AgentMetrics.READY), loop, l -> l.ready() ? 1 : 0).description(AgentMetrics.READY.help())
                .register(meters);
    }

    /**
     * client_java's JVM and process metrics: what {@code JvmMetrics.builder()} registers, less
     * {@code JvmNativeMemoryMetrics}. That one asks the DiagnosticCommand MBean through the platform
     * MBean server, which is created for it at start — ~250 JMX and JFR classes (~2 MiB of class
     * metadata, docs/benchmarks.md) — and it exports nothing unless the JVM runs with
     * -XX:NativeMemoryTracking, which bin/fabricd does not.
     */
    static void registerJvmMetrics(PrometheusRegistry registry) {
        JvmThreadsMetrics.builder().register(registry);
        JvmBufferPoolMetrics.builder().register(registry);
        JvmClassLoadingMetrics.builder().register(registry);
        JvmCompilationMetrics.builder().register(registry);
        JvmGarbageCollectorMetrics.builder().register(registry);
        JvmMemoryPoolAllocationMetrics.builder().register(registry);
        JvmMemoryMetrics.builder().register(registry);
        JvmRuntimeInfoMetric.builder().register(registry);
        ProcessMetrics.builder().register(registry);
        Version.register(registry);
    }

    /** Where to take this agent's node name lock at start when it probes ({@link NodeName}); null (default): nowhere. */
    public Agent nodeLocks(Path dir) {
        this.nodeLockDir = dir;
        return this;
    }

    /** How often to look for a renewed certificate (default one minute); tests shorten it. */
    Agent tlsReloadEvery(Duration every) {
        this.tlsReloadEvery = every;
        return this;
    }

    /** Lowers the budget of answers clients leave unread (tests). */
    Agent unreadBudget(long bytes) {
        this.unreadBudget = bytes;
        return this;
    }

    /** Starts collecting and listening; returns once the server listens. */
    public Agent start() {
        String unusable = listen.unusable();
        if (unusable != null) {
            throw new IllegalArgumentException("cannot listen on " + listen + ": " + unusable);
        }
        // the first collection (cold code: a few hundred ms) runs on its own thread while Vert.x
        // starts: /readyz is up that much sooner (start to ready, docs/benchmarks.md)
        loop.placement(m -> {
            hostLabels = m.labels();
            return placement.refresh();
        });
        loop.start();
        // no placement.refresh() here: the file is read on the collection thread (a file on a stalled
        // mount shows as a stuck collection, never as an agent that does not start); until the first
        // collection the probes go by the rack label
        AgentConfig.Http limits = config.http();
        bounds = new ConnectionLimits(limits.maxConnections(),
                limits.maxRequests(), limits.maxHeadBytes(), unreadBudget, Meters.http(meters));
        vertx = Vertx.builder()
                .withTransport(bounds.transport())
                // no Vert.x metrics (vertx_http_server_*): their meters cost every request and
                // connection a share of the event loop, and memory (docs/benchmarks.md)
                .with(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(2).setInternalBlockingPoolSize(2)
                        // Vert.x's blocked-thread warning looks every 5 s, not every second: a
                        // wake-up of its timer thread less per second on an agent that is mostly
                        // idle; a handler blocking the event loop is still logged
                        .setBlockedThreadCheckInterval(5000))
                .build();
        bounds.watchUnread(vertx);
        String pair = web != null && web.tls() ? TlsKeyPair.problem(web.path(web.tlsServer().certFile()), web.path(web.tlsServer().keyFile())) : null;
        if (pair != null) {
            close();
            throw new IllegalArgumentException("web config file " + config.http().webConfigFile() + ": tls_server_config: " + pair);
        }
        EndpointSignatures signed = null; // no probe key: the signed routes answer 503 to anyone
        if (probeKey != null) {
            try {
                probes = new ProbeService(config.probe(), probeKey, udpHost(), this::nodeName,
                        () -> loop.latest() == null ? Map.of() : loop.latest().model().labels(), registry, natives)
                        .leaf(() -> placement.placement().map(Placement::leaf).orElse(null))
                        // the fabric's agents share a web config: peers serve TLS when this one does
                        .endpointTls(config.probe().endpointTls() != null ? config.probe().endpointTls() : web != null && web.tls()).start();
                loop.probeResults(probes::results);
                signed = new EndpointSignatures(probes.endpointAuth(), meters);
                if (web != null && web.tls() && web.clientAuth() == WebConfig.ClientAuth.REQUIRED
                        && (!config.probe().peers().isEmpty() || !config.probe().dns().isEmpty() || config.probe().kubernetes().enabled())) {
                    LOG.warning("web config: client_auth_type RequireAndVerifyClientCert, but agents present no client certificate "
                            + "when they ask each other for probe endpoints: probing peers will fail; use VerifyClientCertIfGiven "
                            + "(the endpoint is authenticated by the probe key)");
                }
                if (config.probe().verbs() && !source.isSnapshot()) {
                    probes.startVerbs(Path.of("/sys"));
                }
                bandwidth = BandwidthServing.start(config, source, loop, registry, probes, natives.verbs(),
                        new EndpointClient(probeKey, Duration.ofSeconds(20), probes.endpointTlsOn()), this::nodeName, writes);
                preflight = Preflight.of(config, source, loop, probes, natives, writes, bandwidth.server(),
                        () -> BandwidthServing.ports(config.probe().gidIndex()).apply(null), this::nodeName, placement::placement);
            } catch (IOException | UnsupportedAddressTypeException e) {
                close();
                ListenAddress udp = new ListenAddress(udpHost(), config.probe().udpPort());
                throw new IllegalArgumentException("cannot start the probe responder on UDP " + udp + ": " + udp.bindFailure(e));
            }
        } else {
            LOG.info("probing off: no probe key (probe.key_file or " + ProbeKey.ENV + ")");
        }
        if (source instanceof SimulatedHostSource) {
            BandwidthServing.demo(loop, registry);
        }
        ServerSetup.Tls tls = web != null && web.tls() ? tls(web) : null;
        HttpServerOptions opts = ServerSetup.options(limits.idleTimeout(), limits.maxHeaderBytes(), limits.maxRequestLineBytes(), tls);
        try {
            HttpApi http = new HttpApi(vertx, loop, registry, probes);
            List<Route> routes = new ArrayList<>(http.routes(signed));
            routes.addAll(BandwidthApi.routes(vertx, bandwidth.server(), signed,
                    BandwidthServing.off(config, source, probeKey, natives.verbs())));
            routes.addAll(PreflightApi.routes(vertx, preflight, signed));
            server = vertx.createHttpServer(opts)
                    .connectionHandler(bounds.connectionHandler())
                    .requestHandler(new Routes(routes, HttpApi::notFound).handler(vertx, bounds, signed,
                            web == null ? Map.of() : web.basicAuthUsers(), web == null ? Map.of() : web.headers(), Meters.http(meters)))
                    .listen(listen.port(), listen.host())
                    .await();
        } catch (Exception e) {
            close();
            throw new IllegalArgumentException("cannot listen on " + listen + ": " + listen.bindFailure(e));
        }
        if (tls != null) {
            TlsReload.watch(vertx, server, opts.getSslOptions(), tls.files(), tlsReloadEvery.toMillis());
        }
        if (probes != null && nodeLockDir != null) {
            nodeLock = NodeName.claim(nodeLockDir, nodeName(),
                    new ListenAddress(listen.host(), port()), config.stateDir());
        }
        LOG.info("fabricd serving " + source.describe() + " on " + (web != null && web.tls() ? "https" : "http") + "://"
                + new ListenAddress(listen.host(), port()) + "/metrics"
                + (web == null ? "" : " (web config " + config.http().webConfigFile() + ": TLS " + (web.tls() ? "on, client certificates "
                + web.clientAuth().name().toLowerCase(Locale.ROOT).replace('_', ' ') : "off") + ", basic auth "
                + (web.basicAuthUsers().isEmpty() ? "off" : "for " + web.basicAuthUsers().size() + " users") + ")"));
        return this;
    }

    /** The web config's TLS: the certificate and key, client certificates against its CA, the protocol versions. */
    private static ServerSetup.Tls tls(WebConfig web) {
        return new ServerSetup.Tls(web.path(web.tlsServer().certFile()), web.path(web.tlsServer().keyFile()),
                web.clientAuth() == WebConfig.ClientAuth.NONE ? null : web.path(web.tlsServer().clientCaFile()),
                web.clientAuth() == WebConfig.ClientAuth.REQUIRED ? ClientAuth.REQUIRED : ClientAuth.REQUEST, web.protocols());
    }

    /** The name this agent goes by among its peers: probe.node_name, else the latest collection's host name (a renamed host's new one). */
    private String nodeName() {
        CollectionLoop.Published p = loop.latest();
        return NodeName.of(config, p == null ? startHostname : p.model().hostname());
    }

    /** The rack label: probe.rack, else the Kubernetes Node's rack label, else the host labels rack, else tor; null when none. */
    private String rack() {
        String r = probes != null ? probes.labelledRack() : config.probe().rack();
        Map<String, String> host = hostLabels;
        return r != null ? r : host.getOrDefault("rack", host.get("tor"));
    }

    /** Where the UDP responder binds: probe.udp_host, else the HTTP listen address. */
    private String udpHost() {
        return config.probe().udpHost() != null && !config.probe().udpHost().isBlank() ? config.probe().udpHost() : listen.host();
    }


    /** The HTTP server's connection and request limits; null before {@link #start()}. */
    ConnectionLimits connectionLimits() {
        return bounds;
    }

    /** Where this host sits in the fabric: its placement now, from its topology file, Node labels and rack label. */
    public HostPlacement placement() {
        return placement;
    }

    /** The probe service; null when probing is off. */
    public ProbeService probes() {
        return probes;
    }

    public int port() {
        return server.actualPort();
    }

    public CollectionLoop loop() {
        return loop;
    }

    public boolean awaitReady(Duration timeout) throws InterruptedException {
        return loop.awaitFirst(timeout);
    }

    @Override
    public void close() {
        if (nodeLock != null) {
            nodeLock.close();
        }
        bandwidth.close();
        if (probes != null) {
            probes.close();
        }
        loop.close();
        if (vertx != null) {
            vertx.close().await();
        }
    }
}
