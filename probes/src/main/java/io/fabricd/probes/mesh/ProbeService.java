package io.fabricd.probes.mesh;

import io.fabricd.model.probe.ProbeResults;
import io.fabricd.natives.Natives;
import io.fabricd.probes.ProbeConfig;
import io.fabricd.probes.ProbeKey;
import io.fabricd.probes.ProbeResult;
import io.fabricd.probes.ProbeTransport;
import io.fabricd.probes.peers.Endpoint;
import io.fabricd.probes.peers.EndpointAuth;
import io.fabricd.probes.peers.EndpointClient;
import io.fabricd.probes.peers.KubernetesPeers;
import io.fabricd.probes.peers.PeerEndpoints;
import io.fabricd.probes.responder.ResponderStats;
import io.fabricd.probes.responder.UdpResponder;
import io.fabricd.probes.verbs.VerbsPorts;
import io.fabricd.probes.verbs.VerbsResponder;
import io.fabricd.probes.verbs.VerbsTransport;
import io.fabricd.probes.verbs.VerbsUd;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The agent's pingmesh: a UDP responder (and a UD responder per active RDMA port), the endpoint it
 * publishes, and probe rounds to the planned peers, feeding the probe metrics and the results that
 * diagnosis judges. Who the peers are is {@link PeerEndpoints}; the sockets and queue pairs kept
 * between rounds are {@link PeerTransports}. Its own threads; never the event loop.
 */
public final class ProbeService implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ProbeService.class.getName());

    private final ProbeConfig config;
    private final ProbeKey key;
    private final EndpointAuth endpointAuth;
    private final Supplier<String> hostname;
    private final Supplier<Map<String, String>> labels;
    private final ResponderStats responderStats = new ResponderStats();
    private final ProbeMetrics metrics;
    private final ProbeWindows windows;
    private final String bindHost;
    private UdpResponder responder;
    private ScheduledExecutorService rounds;
    private ExecutorService sessions;
    private volatile List<String> planned = List.of();
    private final List<VerbsResponder> verbs = new CopyOnWriteArrayList<>();
    private volatile String verbsStatus = "off (probe.verbs: false, or the agent reads a snapshot)";
    private final ProblemLog problems = new ProblemLog();
    private final Natives natives;
    private final PeerTransports transports;
    private KubernetesPeers kube;
    private PeerEndpoints peers;
    private boolean endpointTls;
    /** This host's leaf switch when its topology knows it (docs/topology.md), else null. */
    private Supplier<String> leaf = () -> null;

    public ProbeService(ProbeConfig config, ProbeKey key, String bindHost, Supplier<String> hostname,
                        Supplier<Map<String, String>> labels, PrometheusRegistry registry, Natives natives) {
        this.config = config;
        this.natives = natives;
        this.transports = new PeerTransports(natives);
        this.key = key;
        this.bindHost = bindHost;
        this.hostname = config.nodeName() != null && !config.nodeName().isBlank() ? () -> config.nodeName() : hostname;
        // requests are accepted when signed for this agent's id, derived from the name it goes by
        this.endpointAuth = new EndpointAuth(key, this.hostname);
        this.labels = labels;
        this.metrics = new ProbeMetrics(registry, responderStats, config.perPeerHistograms());
        this.windows = new ProbeWindows(config.window());
    }

    /** Asks peers for their endpoints over HTTPS (this fabric's agents serve TLS); before {@link #start()}. */
    public ProbeService endpointTls(boolean tls) {
        this.endpointTls = tls;
        return this;
    }

    /**
     * Takes this host's leaf switch, where its topology knows it, for its rack: in the plan and in its
     * endpoint's labels (so its peers' peer_rack). Before {@link #start()}.
     */
    public ProbeService leaf(Supplier<String> leafSwitch) {
        this.leaf = leafSwitch;
        return this;
    }

    /** The Kubernetes Node's labels as last read (empty without probe.kubernetes or before the first read). */
    public Map<String, String> nodeLabels() {
        return kube != null ? kube.labels() : Map.of();
    }

    /** probe.rack, else the Kubernetes node's rack label; null when neither. The topology's leaf plays no part. */
    public String labelledRack() {
        return config.rack() != null ? config.rack() : kube != null ? kube.rack() : null;
    }

    /** Uses these Kubernetes peers instead of connecting by {@code probe.kubernetes}; before {@link #start()}. */
    ProbeService kubernetes(KubernetesPeers peers) {
        this.kube = peers;
        return this;
    }

    public ProbeService start() throws IOException {
        responder = new UdpResponder(natives.libc(), new InetSocketAddress(bindHost, config.udpPort()), key, config.responderRate(),
                config.responderBurst(), responderStats).start();
        if (kube == null && config.kubernetes().enabled()) {
            try {
                kube = KubernetesPeers.connect(config.kubernetes(), hostname.get(), problems);
            } catch (RuntimeException e) { // no usable client configuration
                problems.accept("probe.kubernetes: " + e.getMessage());
            }
        }
        peers = new PeerEndpoints(config, new EndpointClient(key, Duration.ofSeconds(5), endpointTls), kube, hostname, problems);
        if (!config.peers().isEmpty() || !config.dns().isEmpty() || kube != null) {
            rounds = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "fabricd-probe-rounds"));
            sessions = Executors.newFixedThreadPool(config.concurrency(), r -> daemon(r, "fabricd-probe"));
            long period = config.interval().toMillis();
            rounds.scheduleAtFixedRate(this::roundWithJitter, 0, period, TimeUnit.MILLISECONDS);
            LOG.info("probing: responder on UDP " + bindHost + ":" + responder.port() + ", a round every " + config.interval().toMillis()
                    + " ms, peers from " + peers.sources());
        } else {
            LOG.info("probe responder on UDP " + bindHost + ":" + responder.port() + "; no peers configured (probe.peers, probe.dns "
                    + "or probe.kubernetes): answering, not probing");
        }
        return this;
    }

    /**
     * Starts a UD responder on every ACTIVE RDMA port of the live host ({@code sys}: /sys). Ports that
     * fail are left out and the reason shows in the endpoint's verbs_status.
     */
    public void startVerbs(Path sys) {
        String why = natives.verbs().udUnavailable();
        if (why != null) {
            verbsStatus = "unavailable: " + why;
            return;
        }
        List<String> failed = new ArrayList<>();
        for (VerbsPorts.Port p : VerbsPorts.discover(sys)) {
            try {
                verbs.add(new VerbsResponder(natives.verbs(), p.device(), p.port(), config.gidIndex() != null ? config.gidIndex() : p.gidIndex(), key, config.responderRate(), config.responderBurst(),
                        (int) Math.min(1_000_000, config.responderSpin().toNanos() / 1000), responderStats).start());
            } catch (IOException e) {
                failed.add(p.device() + "/" + p.port() + ": " + e.getMessage());
            }
        }
        verbsStatus = verbs.isEmpty() && failed.isEmpty() ? "no ACTIVE RDMA port"
                : failed.isEmpty() ? "available" : "available on " + verbs.size() + " ports; failed: " + String.join("; ", failed);
        LOG.info("verbs probe responders: " + verbsStatus);
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** Whether peers are asked over HTTPS. */
    public boolean endpointTlsOn() {
        return endpointTls;
    }

    public ProbeKey key() {
        return key;
    }

    /** Checks endpoint requests (each nonce once) and signs the answers. */
    public EndpointAuth endpointAuth() {
        return endpointAuth;
    }

    public ResponderStats responderStats() {
        return responderStats;
    }

    /** What {@code GET /api/v1/probe/endpoint} answers. */
    public Endpoint endpoint() {
        Map<String, String> l = new TreeMap<>(labels.get());
        String rack = configuredRack();
        if (rack != null) {
            l.put("rack", rack);
        }
        List<Endpoint.Device> devices = new ArrayList<>();
        for (VerbsResponder v : verbs) {
            VerbsUd.Address a = v.address();
            devices.add(new Endpoint.Device(a.device(), a.port(), VerbsUd.gidText(a.gid()), a.gidIndex(), a.qpn(), VerbsUd.QKEY,
                    a.lid(), a.activeMtu()));
        }
        return new Endpoint(hostname.get(), l, responder == null ? null : responder.port(), devices, verbsStatus);
    }

    /** The recent rounds and verbs paths, for the probe checks of diagnosis. */
    public ProbeResults results() {
        return windows.snapshot();
    }

    /** The host name each probed peer's endpoint gave, by peer (its HOST:PORT as in the windows). */
    public Map<String, String> peerHosts() {
        return windows.hosts();
    }

    public List<String> planned() {
        return planned;
    }

    private void roundWithJitter() {
        try {
            long delay = (long) (ThreadLocalRandom.current().nextDouble() * config.jitter() * config.interval().toMillis());
            Thread.sleep(delay);
            round();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "probe round failed", e);
        }
    }

    /** One round: resolve peers, learn their endpoints, plan, probe. Public for tests. */
    public void round() throws InterruptedException {
        if (kube != null) {
            kube.refreshRack();
        }
        List<String> listed = peers.listed();
        Map<String, Endpoint> known = peers.probeable(listed);
        String selfRack = configuredRack() != null ? configuredRack() : new Endpoint("", labels.get(), null, null, null).rack();
        List<Planner.Peer> candidates = known.entrySet().stream().map(e -> new Planner.Peer(e.getKey(), e.getValue().rack())).toList();
        List<Planner.Peer> plan = Planner.plan(new Planner.Peer(hostname.get(), selfRack), candidates, config.crossRack(),
                config.maxInRack());
        List<String> before = planned;
        planned = plan.stream().map(Planner.Peer::id).toList();
        if (!new HashSet<>(planned).equals(new HashSet<>(before))) {
            List<String> shown = planned.size() > 8 ? planned.subList(0, 8) : planned;
            LOG.info("probe: planned " + planned.size() + " of " + listed.size() + " listed peers"
                    + (planned.isEmpty() ? "" : ": " + String.join(", ", shown) + (planned.size() > shown.size() ? ", ..." : "")));
        }
        Set<String> keep = new HashSet<>(planned);
        metrics.retain(keep);
        windows.retain(keep);
        transports.retainUdp(keep);
        List<Future<?>> running = new ArrayList<>();
        for (Planner.Peer p : plan) {
            Endpoint ep = known.get(p.id());
            running.add(sessions.submit(() -> probe(p.id(), ep)));
        }
        for (Future<?> f : running) {
            try {
                f.get();
            } catch (ExecutionException e) {
                LOG.log(Level.FINE, "probe failed", e.getCause());
            }
        }
    }

    private void probe(String peer, Endpoint ep) {
        probeVerbs(peer, ep);
        InetSocketAddress target = new InetSocketAddress(EndpointClient.host(peer), ep.udpPort());
        for (int size : config.sizes()) {
            try {
                ProbeResult r = new ProbeSession(transports.udp(peer, target), key, config.pacing(), config.timeout()).run(peer, null, null, size,
                        config.count());
                metrics.record(r, ep.rack());
                windows.record(r, ep.rack(), ep.host());
            } catch (IOException | RuntimeException e) {
                transports.closeUdp(peer);
                problems.accept(peer + ": " + e.getMessage());
            }
        }
    }

    /**
     * Over RDMA UD, from this host's first verbs port to the peer's first responder: 64 B and the
     * path MTU. A peer whose active MTU differs from ours is a cross-host mtu_mismatch.
     */
    private void probeVerbs(String peer, Endpoint ep) {
        if (verbs.isEmpty() || ep.devices().isEmpty()) {
            return;
        }
        VerbsUd.Address local = verbs.get(0).address();
        String myGid = VerbsUd.gidText(local.gid());
        Endpoint.Device remote = ep.firstOtherThan(myGid);
        if (remote == null) {
            return;
        }
        windows.recordMtu(peer, local.device(), local.activeMtu(), remote.device(), remote.activeMtu());
        try {
            VerbsUd ud = transports.requester(local);
            ProbeTransport t = new VerbsTransport(ud, remote, local.activeMtu());
            for (int size : new int[] {64, t.maxSize()}) {
                ProbeResult r = new ProbeSession(t, key, config.pacing(), config.timeout()).run(peer, local.device(), remote.device(),
                        size, config.count());
                metrics.record(r, ep.rack());
                windows.record(r, ep.rack(), ep.host());
            }
        } catch (IOException | RuntimeException e) {
            problems.accept(peer + " (verbs): " + e.getMessage());
        }
    }

    /** The topology's leaf, else probe.rack, else the Kubernetes node's rack label; null when none. */
    private String configuredRack() {
        String l = leaf.get();
        return l != null ? l : labelledRack();
    }

    @Override
    public void close() {
        if (rounds != null) {
            rounds.shutdownNow();
        }
        if (sessions != null) {
            sessions.shutdownNow();
        }
        if (responder != null) {
            responder.close();
        }
        verbs.forEach(VerbsResponder::close);
        if (sessions != null) {
            try {
                sessions.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        transports.close();
        if (kube != null) {
            kube.close();
        }
    }
}
