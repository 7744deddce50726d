package io.fabricd.probes;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The {@code probe:} section of fabricd's configuration (docs/probes.md). Probing needs the fabric's
 * shared key ({@code key_file} or the environment variable FABRICD_PROBE_KEY); without one the agent
 * neither answers nor sends probes.
 */
public final class ProbeConfig {
    /** File holding the shared key (at least 16 bytes; `openssl rand -hex 32`). */
    @JsonProperty("key_file")
    public Path keyFile;

    /** UDP port of the responder (9531). */
    @JsonProperty("udp_port")
    public int udpPort = 9531;

    /**
     * Address the UDP responder binds (default: the HTTP listen address). Set it where HTTP listens
     * on loopback behind a proxy (kube-rbac-proxy) while peers must reach the responder.
     */
    @JsonProperty("udp_host")
    public String udpHost;

    /**
     * Ask peers for their probe endpoints over HTTPS (default: when this agent serves TLS itself).
     * True where a TLS proxy (kube-rbac-proxy) fronts the agents' HTTP ports.
     */
    @JsonProperty("endpoint_tls")
    public Boolean endpointTls;

    /**
     * Start an RDMA UD responder on every ACTIVE port of the live host and list them in the endpoint
     * (true). Off, or without libibverbs and the shim, the agent answers UDP probes only.
     */
    @JsonProperty("verbs")
    public boolean verbs = true;

    /**
     * Export the probe RTT histograms per peer (46 series per peer, size and transport) instead of
     * per peer rack (false): per-peer latency is fabric_probe_rtt_recent_seconds' two quantiles either
     * way. On for small fleets that want per-peer heatmaps.
     */
    @JsonProperty("per_peer_histograms")
    public boolean perPeerHistograms = false;

    /**
     * GID index the verbs responders send from (default: per port, a RoCE v2 GID on an IPv4 address,
     * else any routable RoCE v2 GID; 0 on InfiniBand).
     */
    @JsonProperty("gid_index")
    public Integer gidIndex;

    /**
     * How long a verbs responder busy-polls for the next probe after each answer before it sleeps
     * (0: never). A spin saves the wake-up of a sleeping thread per probe at the cost of CPU while
     * probes keep coming; docs/benchmarks.md has what it gave.
     */
    @JsonProperty("responder_spin")
    public Duration responderSpin = Duration.ZERO;

    /** Answers per second the responder gives at most (1000), and its burst (200). */
    @JsonProperty("responder_rate")
    public double responderRate = 1000;

    @JsonProperty("responder_burst")
    public int responderBurst = 200;

    /** Other agents, HOST:PORT of their HTTP listener. */
    @JsonProperty("peers")
    public List<String> peers = List.of();

    /** NAME:PORT: every address NAME resolves to is a peer (a headless Service's records). */
    @JsonProperty("dns")
    public List<String> dns = List.of();

    /** Peers from the Kubernetes API (off unless {@code probe.kubernetes.service} is set). */
    @JsonProperty("kubernetes")
    public Kubernetes kubernetes = new Kubernetes();

    /**
     * This agent's name among its peers (default: the environment variable NODE_NAME, as a
     * DaemonSet's downward API sets it, else the host's name). Peers answering with the same name
     * are taken for this agent and not probed.
     */
    @JsonProperty("node_name")
    public String nodeName = System.getenv("NODE_NAME");

    /**
     * This host's rack (ToR) label for the plan; default: the Kubernetes node's rack label (with
     * probe.kubernetes), else the host labels "rack", else "tor".
     */
    @JsonProperty("rack")
    public String rack;

    /** Time between probe rounds (10s). */
    @JsonProperty("interval")
    public Duration interval = Duration.ofSeconds(10);

    /** Each round starts up to this share of the interval late, at random (0.2): agents do not probe in lockstep. */
    @JsonProperty("jitter")
    public double jitter = 0.2;

    /** Probes per peer, size and round (10). */
    @JsonProperty("count")
    public int count = 10;

    /** Probe sizes in bytes over UDP ([64, 1024]). */
    @JsonProperty("sizes")
    public List<Integer> sizes = List.of(64, 1024);

    /** Time between two probes to one peer (10ms). */
    @JsonProperty("pacing")
    public Duration pacing = Duration.ofMillis(10);

    /** An answer later than this is late, not counted in the RTTs (1s). */
    @JsonProperty("timeout")
    public Duration timeout = Duration.ofSeconds(1);

    /**
     * Peers of other racks probed besides the own rack's full mesh and the rack-pair duty (2),
     * chosen by rendezvous hashing.
     */
    @JsonProperty("cross_rack")
    public int crossRack = 2;

    /** Cap on the own rack's mesh (64). */
    @JsonProperty("max_in_rack")
    public int maxInRack = 64;

    /** Peers probed at once (4). */
    @JsonProperty("concurrency")
    public int concurrency = 4;

    /** How long a peer's endpoint is reused before it is asked again (5m). */
    @JsonProperty("endpoint_refresh")
    public Duration endpointRefresh = Duration.ofMinutes(5);

    /** probe_loss: lost share of the window above which it is reported (0.02), with at least 50 probes. */
    @JsonProperty("loss_threshold")
    public double lossThreshold = 0.02;

    /** probe_latency: p99 RTT above which it is reported (5ms). */
    @JsonProperty("latency_threshold")
    public Duration latencyThreshold = Duration.ofMillis(5);

    /** Rounds in the sliding window of the probe findings (30). */
    @JsonProperty("window")
    public int window = 30;

    /** The {@code probe.kubernetes:} section. */
    public static final class Kubernetes {
        /**
         * The DaemonSet's Service: every ready endpoint of its EndpointSlices is a peer. Setting it
         * turns Kubernetes discovery on.
         */
        @JsonProperty("service")
        public String service;

        /** Namespace of the Service (default: POD_NAMESPACE, else the pod's service-account namespace). */
        @JsonProperty("namespace")
        public String namespace;

        /** Name of the slice port that is the agent's HTTP listener ("http"); a slice with one port uses it whatever its name. */
        @JsonProperty("port_name")
        public String portName = "http";

        /** Node labels that name the rack (ToR), first set wins. */
        @JsonProperty("rack_labels")
        public List<String> rackLabels = List.of("fabricd.io/rack", "fabricd.io/tor", "rack", "tor");

        /** How long the node's rack label is reused before the node is read again (10m). */
        @JsonProperty("node_refresh")
        public Duration nodeRefresh = Duration.ofMinutes(10);

        /**
         * An Opaque Secret (in {@code namespace}) holding the probe key under {@code key}; the Helm
         * chart makes it without data and the first agent fills it with a random key
         * (KubernetesProbeKey). Used when no
         * {@code key_file} and no FABRICD_PROBE_KEY is given; the Helm chart sets it unless a key or
         * an existing Secret is named.
         */
        @JsonProperty("key_secret")
        public String keySecret;

        /** API server URL (default: in-cluster, from the service account; else the kubeconfig). */
        @JsonProperty("api_server")
        public String apiServer;

        public boolean enabled() {
            return service != null && !service.isBlank();
        }
    }

    public void validate() {
        if (kubernetes == null) {
            kubernetes = new Kubernetes();
        }
        if (kubernetes.enabled() && (kubernetes.portName == null || kubernetes.portName.isBlank() || kubernetes.rackLabels == null
                || kubernetes.nodeRefresh == null || kubernetes.nodeRefresh.isNegative())) {
            throw new IllegalArgumentException("probe.kubernetes: port_name, rack_labels and node_refresh must be set");
        }
        if (udpPort < 0 || udpPort > 65535) {
            throw new IllegalArgumentException("probe.udp_port must be 0-65535");
        }
        if (!(responderRate > 0) || responderBurst < 1) {
            throw new IllegalArgumentException("probe.responder_rate and probe.responder_burst must be positive");
        }
        if (count < 1 || count > 100_000) {
            throw new IllegalArgumentException("probe.count must be 1-100000");
        }
        for (int s : sizes) {
            if (s < ProbePacket.MIN_SIZE || s > ProbePacket.MAX_SIZE) {
                throw new IllegalArgumentException("probe.sizes: " + s + " outside " + ProbePacket.MIN_SIZE + ".." + ProbePacket.MAX_SIZE);
            }
        }
        if (interval == null || interval.toMillis() < 100 || timeout == null || timeout.toMillis() < 1 || pacing == null
                || pacing.isNegative()) {
            throw new IllegalArgumentException("probe.interval must be at least 100ms, probe.timeout positive, probe.pacing not negative");
        }
        if (responderSpin == null || responderSpin.isNegative() || responderSpin.toMillis() > 1000) {
            throw new IllegalArgumentException("probe.responder_spin must be 0-1s");
        }
        if (jitter < 0 || jitter > 1) {
            throw new IllegalArgumentException("probe.jitter must be in [0, 1]");
        }
        if (crossRack < 0 || maxInRack < 0 || concurrency < 1 || window < 1) {
            throw new IllegalArgumentException("probe.cross_rack and probe.max_in_rack must not be negative, probe.concurrency and probe.window positive");
        }
        if (!(lossThreshold >= 0 && lossThreshold < 1)) {
            throw new IllegalArgumentException("probe.loss_threshold must be in [0, 1)");
        }
        for (String d : dns) {
            if (d.lastIndexOf(':') <= 0) {
                throw new IllegalArgumentException("probe.dns: '" + d + "' is not NAME:PORT");
            }
        }
        for (String p : peers) {
            if (p.lastIndexOf(':') <= 0) {
                throw new IllegalArgumentException("probe.peers: '" + p + "' is not HOST:PORT");
            }
        }
    }
}
