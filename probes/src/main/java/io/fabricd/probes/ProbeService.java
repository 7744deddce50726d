package io.fabricd.probes;

import io.fabricd.diagnosis.Finding;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * The agent's pingmesh: a UDP responder, the endpoint it publishes, and probe rounds to the planned
 * peers (static list, DNS names, the Kubernetes Service's EndpointSlices), feeding the probe metrics and findings. Its own threads; never
 * the event loop.
 */
public final class ProbeService implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ProbeService.class.getName());

    private final ProbeConfig config;
    private final ProbeKey key;
    private final EndpointAuth endpointAuth;
    private final Supplier<String> hostname;
    private final Supplier<Map<String, String>> labels;
    private final UdpResponder.ResponderStats responderStats = new UdpResponder.ResponderStats();
    private final ProbeMetrics metrics;
    private final ProbeFindings findings;
    private EndpointClient client;
    private final Map<String, Cached> endpoints = new HashMap<>();
    private final String bindHost;
    private UdpResponder responder;
    private ScheduledExecutorService rounds;
    private ExecutorService sessions;
    private volatile List<String> planned = List.of();
    private final List<VerbsResponder> verbs = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile String verbsStatus = "off (probe.verbs: false, or the agent reads a snapshot)";
    /** Problem message → when it was last logged (bounded). */
    private final Map<String, Long> reported = new java.util.LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
            return size() > 64;
        }
    };
    private KubernetesPeers kube;

    private record Cached(Endpoint endpoint, long fetchedNanos) {
    }

    public ProbeService(ProbeConfig config, ProbeKey key, String bindHost, Supplier<String> hostname,
                        Supplier<Map<String, String>> labels, PrometheusRegistry registry) {
        this.config = config;
        this.key = key;
        this.endpointAuth = new EndpointAuth(key);
        this.bindHost = bindHost;
        this.hostname = config.nodeName != null && !config.nodeName.isBlank() ? () -> config.nodeName : hostname;
        this.labels = labels;
        this.metrics = new ProbeMetrics(registry, responderStats);
        this.findings = new ProbeFindings(config.window, config.lossThreshold, 50, config.latencyThreshold.toNanos() / 1e9, 5.0);
        this.client = new EndpointClient(key, java.time.Duration.ofSeconds(5));
    }

    /** Asks peers for their endpoints over HTTPS (this fabric's agents serve TLS); before {@link #start()}. */
    public ProbeService endpointTls(boolean tls) {
        this.client = new EndpointClient(key, java.time.Duration.ofSeconds(5), tls);
        return this;
    }

    /** Uses these Kubernetes peers instead of connecting by {@code probe.kubernetes}; before {@link #start()}. */
    ProbeService kubernetes(KubernetesPeers peers) {
        this.kube = peers;
        return this;
    }

    public ProbeService start() throws IOException {
        responder = new UdpResponder(new InetSocketAddress(bindHost, config.udpPort), key, config.responderRate,
                config.responderBurst, responderStats).start();
        if (kube == null && config.kubernetes.enabled()) {
            try {
                kube = KubernetesPeers.connect(config.kubernetes, hostname.get(), this::problem);
            } catch (RuntimeException e) { // no usable client configuration
                problem("probe.kubernetes: " + e.getMessage());
            }
        }
        if (!config.peers.isEmpty() || !config.dns.isEmpty() || kube != null) {
            rounds = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "fabricd-probe-rounds"));
            sessions = Executors.newFixedThreadPool(config.concurrency, r -> daemon(r, "fabricd-probe"));
            long period = config.interval.toMillis();
            rounds.scheduleAtFixedRate(this::roundWithJitter, 0, period, TimeUnit.MILLISECONDS);
            LOG.info("probing: responder on UDP " + bindHost + ":" + responder.port() + ", a round every " + config.interval.toMillis()
                    + " ms, peers from " + peerSources());
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
    public void startVerbs(java.nio.file.Path sys) {
        String why = VerbsUd.unavailable();
        if (why != null) {
            verbsStatus = "unavailable: " + why;
            return;
        }
        List<String> failed = new ArrayList<>();
        for (VerbsPorts.Port p : VerbsPorts.discover(sys)) {
            try {
                verbs.add(new VerbsResponder(p.device(), p.port(), config.gidIndex != null ? config.gidIndex : p.gidIndex(), key, config.responderRate, config.responderBurst,
                        (int) Math.min(1_000_000, config.responderSpin.toNanos() / 1000), responderStats).start());
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

    public ProbeKey key() {
        return key;
    }

    /** Checks endpoint requests (each nonce once) and signs the answers. */
    public EndpointAuth endpointAuth() {
        return endpointAuth;
    }

    public UdpResponder.ResponderStats responderStats() {
        return responderStats;
    }

    /** What {@code GET /api/v1/probe/endpoint} answers. */
    public Endpoint endpoint() {
        Map<String, String> l = new java.util.TreeMap<>(labels.get());
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

    /** Open probe findings (probe_loss, probe_latency). */
    public List<Finding> findings() {
        return findings.findings();
    }

    public List<String> planned() {
        return planned;
    }

    private void roundWithJitter() {
        try {
            long delay = (long) (ThreadLocalRandom.current().nextDouble() * config.jitter * config.interval.toMillis());
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
        Map<String, Endpoint> known = new java.util.TreeMap<>();
        if (kube != null) {
            kube.refreshRack();
        }
        List<String> listed = peers();
        synchronized (endpoints) {
            endpoints.keySet().retainAll(listed); // peers that left the list or DNS
        }
        for (String peer : listed) {
            Endpoint ep = endpoint(peer);
            if (ep != null && !ep.host().equals(hostname.get()) && ep.udpPort() != null) {
                known.put(peer, ep);
            }
        }
        String selfRack = configuredRack() != null ? configuredRack() : new Endpoint("", labels.get(), null, null, null).rack();
        List<Planner.Peer> candidates = known.entrySet().stream().map(e -> new Planner.Peer(e.getKey(), e.getValue().rack())).toList();
        List<Planner.Peer> plan = Planner.plan(new Planner.Peer(hostname.get(), selfRack), candidates, config.crossRack,
                config.maxInRack);
        List<String> before = planned;
        planned = plan.stream().map(Planner.Peer::id).toList();
        if (!new java.util.HashSet<>(planned).equals(new java.util.HashSet<>(before))) {
            List<String> shown = planned.size() > 8 ? planned.subList(0, 8) : planned;
            LOG.info("probe: planned " + planned.size() + " of " + listed.size() + " listed peers"
                    + (planned.isEmpty() ? "" : ": " + String.join(", ", shown) + (planned.size() > shown.size() ? ", ..." : "")));
        }
        Set<String> keep = new java.util.HashSet<>(planned);
        metrics.retain(keep);
        findings.retain(keep);
        List.copyOf(udp.keySet()).stream().filter(p -> !keep.contains(p)).forEach(this::closeUdp);
        List<Future<?>> running = new ArrayList<>();
        for (Planner.Peer p : plan) {
            Endpoint ep = known.get(p.id());
            running.add(sessions.submit(() -> probe(p.id(), ep)));
        }
        for (Future<?> f : running) {
            try {
                f.get();
            } catch (java.util.concurrent.ExecutionException e) {
                LOG.log(Level.FINE, "probe failed", e.getCause());
            }
        }
    }

    private void probe(String peer, Endpoint ep) {
        probeVerbs(peer, ep);
        InetSocketAddress target = new InetSocketAddress(EndpointClient.host(peer), ep.udpPort());
        for (int size : config.sizes) {
            try {
                ProbeResult r = new ProbeSession(udp(peer, target), key, config.pacing, config.timeout).run(peer, null, null, size,
                        config.count);
                metrics.record(r, ep.rack());
                findings.record(r, ep.rack());
            } catch (IOException | RuntimeException e) {
                closeUdp(peer);
                problem(peer + ": " + e.getMessage());
            }
        }
    }

    /**
     * One UDP socket per peer, kept from round to round: a stable source port, so the peer's
     * responder sorts this agent's probes into a socket of their own, apart from any flood at its
     * port. Used by one session thread at a time (a peer is probed once per round).
     */
    private final Map<String, UdpTransport> udp = new java.util.concurrent.ConcurrentHashMap<>();

    private UdpTransport udp(String peer, InetSocketAddress target) throws IOException {
        UdpTransport t = udp.get(peer);
        if (t != null && t.target().equals(target)) {
            return t;
        }
        closeUdp(peer);
        t = new UdpTransport(target);
        udp.put(peer, t);
        return t;
    }

    private void closeUdp(String peer) {
        UdpTransport t = udp.remove(peer);
        if (t != null) {
            t.close();
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
        findings.recordMtu(peer, local.device(), local.activeMtu(), remote.device(), remote.activeMtu());
        try {
            VerbsUd ud = requester(local);
            ProbeTransport t = new VerbsTransport(ud, remote, local.activeMtu());
            for (int size : new int[] {64, t.maxSize()}) {
                ProbeResult r = new ProbeSession(t, key, config.pacing, config.timeout).run(peer, local.device(), remote.device(),
                        size, config.count);
                metrics.record(r, ep.rack());
                findings.record(r, ep.rack());
            }
        } catch (IOException | RuntimeException e) {
            problem(peer + " (verbs): " + e.getMessage());
        }
    }

    /** Each session thread keeps one UD requester for the service's life (a QP per round would churn). */
    private final ThreadLocal<VerbsUd> requesters = new ThreadLocal<>();
    private final List<VerbsUd> allRequesters = new java.util.concurrent.CopyOnWriteArrayList<>();

    private VerbsUd requester(VerbsUd.Address local) throws IOException {
        VerbsUd ud = requesters.get();
        if (ud == null) {
            ud = new VerbsUd(local.device(), local.port(), local.gidIndex(), 4096, 256);
            requesters.set(ud);
            allRequesters.add(ud);
        }
        return ud;
    }

    private Endpoint endpoint(String peer) {
        Cached c;
        synchronized (endpoints) {
            c = endpoints.get(peer);
        }
        long now = System.nanoTime();
        if (c != null && now - c.fetchedNanos() < config.endpointRefresh.toNanos()) {
            return c.endpoint();
        }
        try {
            Endpoint ep = client.fetch(peer);
            synchronized (endpoints) {
                endpoints.put(peer, new Cached(ep, now));
            }
            boolean back;
            synchronized (unreachable) {
                back = unreachable.remove(peer);
            }
            if (back) {
                LOG.info("probe: " + peer + " (" + ep.host() + ") answers again");
            } else if (ep.host().equals(hostname.get())) {
                selfOnce(peer);
            }
            return ep;
        } catch (IOException e) {
            problem(e.getMessage());
            synchronized (unreachable) {
                unreachable.add(peer);
            }
            synchronized (endpoints) {
                endpoints.remove(peer);
            }
            return null;
        }
    }

    /** Peers whose endpoint could not be fetched last time: their return is logged. */
    private final Set<String> unreachable = new java.util.HashSet<>();
    private final Set<String> saidSelf = new java.util.HashSet<>();

    /** A listed peer that is this agent (same node name) is left out of the plan, said once. */
    private void selfOnce(String peer) {
        synchronized (saidSelf) {
            if (saidSelf.add(peer)) {
                LOG.info("probe: " + peer + " is this agent (" + hostname.get() + "): not probed");
            }
        }
    }

    private String peerSources() {
        List<String> from = new ArrayList<>();
        if (!config.peers.isEmpty()) {
            from.add(config.peers.size() + " in probe.peers");
        }
        if (!config.dns.isEmpty()) {
            from.add("DNS " + String.join(", ", config.dns));
        }
        if (kube != null) {
            from.add("the Kubernetes Service " + config.kubernetes.service);
        }
        return String.join(", ", from);
    }

    /** probe.rack, else the Kubernetes node's rack label; null when neither. */
    private String configuredRack() {
        return config.rack != null ? config.rack : kube != null ? kube.rack() : null;
    }

    /**
     * The static peers, every address of the DNS names and the Kubernetes Service's ready
     * endpoints, in order, without duplicates.
     */
    List<String> peers() {
        Set<String> out = new LinkedHashSet<>(config.peers);
        if (kube != null) {
            out.addAll(kube.peers());
        }
        for (String d : config.dns) {
            int c = d.lastIndexOf(':');
            String name = d.substring(0, c);
            String port = d.substring(c + 1);
            try {
                for (InetAddress a : InetAddress.getAllByName(name)) {
                    String h = a.getHostAddress();
                    out.add((h.contains(":") ? "[" + h + "]" : h) + ":" + port);
                }
            } catch (UnknownHostException e) {
                problem("probe.dns: cannot resolve " + name);
            }
        }
        return new ArrayList<>(out);
    }

    /** Logs a probing problem once, not every round or retry: again only after ten minutes. */
    private void problem(String message) {
        long now = System.nanoTime();
        synchronized (reported) {
            Long last = reported.get(message);
            if (last != null && now - last < TimeUnit.MINUTES.toNanos(10)) {
                return;
            }
            reported.put(message, now);
        }
        LOG.warning("probe: " + message);
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
        allRequesters.forEach(VerbsUd::close);
        List.copyOf(udp.keySet()).forEach(this::closeUdp);
        if (kube != null) {
            kube.close();
        }
    }
}
