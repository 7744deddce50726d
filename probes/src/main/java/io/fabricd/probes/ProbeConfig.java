package io.fabricd.probes;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The {@code probe:} section of fabricd's configuration (docs/probes.md), bound from YAML; a key
 * left out (or given as null) takes its default. Probing needs the fabric's shared key
 * ({@code key_file} or the environment variable FABRICD_PROBE_KEY); without one the agent neither
 * answers nor sends probes.
 *
 * @param keyFile           file holding the shared key (at least 16 bytes; `openssl rand -hex 32`)
 * @param udpPort           UDP port of the responder (9531)
 * @param udpHost           address the UDP responder binds (default: the HTTP listen address); set it
 *                          where HTTP listens on loopback behind a proxy (kube-rbac-proxy) while peers
 *                          must reach the responder
 * @param endpointTls       ask peers for their probe endpoints over HTTPS (default: when this agent
 *                          serves TLS itself); true where a TLS proxy fronts the agents' HTTP ports
 * @param verbs             start an RDMA UD responder on every ACTIVE port of the live host and list
 *                          them in the endpoint (true); off, or without libibverbs and the shim, the
 *                          agent answers UDP probes only
 * @param perPeerHistograms export the probe RTT histograms per peer (46 series per peer, size and
 *                          transport) instead of per peer rack (false): per-peer latency is
 *                          fabric_probe_rtt_recent_seconds' two quantiles either way
 * @param gidIndex          GID index the verbs responders send from (default: per port, a RoCE v2 GID
 *                          on an IPv4 address, else any routable RoCE v2 GID; 0 on InfiniBand)
 * @param responderSpin     how long a verbs responder busy-polls for the next probe after each answer
 *                          before it sleeps (0: never); docs/benchmarks.md has what it gave
 * @param responderRate     answers per second the responder gives at most (1000)
 * @param responderBurst    the responder's burst (200)
 * @param peers             other agents, HOST:PORT of their HTTP listener
 * @param dns               NAME:PORT: every address NAME resolves to is a peer (a headless Service's records)
 * @param kubernetes        peers from the Kubernetes API (off unless {@code probe.kubernetes.service} is set)
 * @param nodeName          this agent's name among its peers (default: the environment variable
 *                          NODE_NAME, as a DaemonSet's downward API sets it, else the host's name);
 *                          peers answering with the same name are taken for this agent and not probed
 * @param rack              this host's rack (ToR) label for the plan; default: the Kubernetes node's
 *                          rack label (with probe.kubernetes), else the host labels "rack", else "tor"
 * @param interval          time between probe rounds (10s)
 * @param jitter            each round starts up to this share of the interval late, at random (0.2):
 *                          agents do not probe in lockstep
 * @param count             probes per peer, size and round (10)
 * @param sizes             probe sizes in bytes over UDP ([64, 1024])
 * @param pacing            time between two probes to one peer (10ms)
 * @param timeout           an answer later than this is late, not counted in the RTTs (1s)
 * @param crossRack         peers of other racks probed besides the own rack's full mesh and the
 *                          rack-pair duty (2), chosen by rendezvous hashing
 * @param maxInRack         cap on the own rack's mesh (64)
 * @param concurrency       peers probed at once (4)
 * @param endpointRefresh   how long a peer's endpoint is reused before it is asked again (5m)
 * @param lossThreshold     probe_loss: lost share of the window above which it is reported (0.02),
 *                          with at least 50 probes
 * @param latencyThreshold  probe_latency: p99 RTT above which it is reported (5ms)
 * @param window            rounds in the sliding window of the probe findings (30)
 */
public record ProbeConfig(Path keyFile, int udpPort, String udpHost, Boolean endpointTls, boolean verbs,
                          boolean perPeerHistograms, Integer gidIndex, Duration responderSpin, double responderRate,
                          int responderBurst, List<String> peers, List<String> dns, Kubernetes kubernetes, String nodeName,
                          String rack, Duration interval, double jitter, int count, List<Integer> sizes, Duration pacing,
                          Duration timeout, int crossRack, int maxInRack, int concurrency, Duration endpointRefresh,
                          double lossThreshold, Duration latencyThreshold, int window) {

    public ProbeConfig {
        peers = List.copyOf(peers);
        dns = List.copyOf(dns);
        sizes = List.copyOf(sizes);
    }

    /** Every key at its default. */
    public static ProbeConfig defaults() {
        return bind(null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
                null, null, null, null, null, null, null, null, null);
    }

    /** The YAML binding: a key left out or null is its default. */
    @JsonCreator
    static ProbeConfig bind(@JsonProperty("key_file") Path keyFile, @JsonProperty("udp_port") Integer udpPort,
                            @JsonProperty("udp_host") String udpHost, @JsonProperty("endpoint_tls") Boolean endpointTls,
                            @JsonProperty("verbs") Boolean verbs, @JsonProperty("per_peer_histograms") Boolean perPeerHistograms,
                            @JsonProperty("gid_index") Integer gidIndex, @JsonProperty("responder_spin") Duration responderSpin,
                            @JsonProperty("responder_rate") Double responderRate, @JsonProperty("responder_burst") Integer responderBurst,
                            @JsonProperty("peers") List<String> peers, @JsonProperty("dns") List<String> dns,
                            @JsonProperty("kubernetes") Kubernetes kubernetes, @JsonProperty("node_name") String nodeName,
                            @JsonProperty("rack") String rack, @JsonProperty("interval") Duration interval,
                            @JsonProperty("jitter") Double jitter, @JsonProperty("count") Integer count,
                            @JsonProperty("sizes") List<Integer> sizes, @JsonProperty("pacing") Duration pacing,
                            @JsonProperty("timeout") Duration timeout, @JsonProperty("cross_rack") Integer crossRack,
                            @JsonProperty("max_in_rack") Integer maxInRack, @JsonProperty("concurrency") Integer concurrency,
                            @JsonProperty("endpoint_refresh") Duration endpointRefresh,
                            @JsonProperty("loss_threshold") Double lossThreshold,
                            @JsonProperty("latency_threshold") Duration latencyThreshold, @JsonProperty("window") Integer window) {
        return new ProbeConfig(keyFile, or(udpPort, 9531), udpHost, endpointTls, or(verbs, true), or(perPeerHistograms, false), gidIndex,
                or(responderSpin, Duration.ZERO), or(responderRate, 1000.0), or(responderBurst, 200), or(peers, List.of()),
                or(dns, List.of()), or(kubernetes, Kubernetes.defaults()), or(nodeName, System.getenv("NODE_NAME")), rack,
                or(interval, Duration.ofSeconds(10)), or(jitter, 0.2), or(count, 10), or(sizes, List.of(64, 1024)),
                or(pacing, Duration.ofMillis(10)), or(timeout, Duration.ofSeconds(1)), or(crossRack, 2), or(maxInRack, 64),
                or(concurrency, 4), or(endpointRefresh, Duration.ofMinutes(5)), or(lossThreshold, 0.02),
                or(latencyThreshold, Duration.ofMillis(5)), or(window, 30));
    }

    private static <T> T or(T value, T otherwise) {
        return value != null ? value : otherwise;
    }

    /**
     * The {@code probe.kubernetes:} section.
     *
     * @param service     the DaemonSet's Service: every ready endpoint of its EndpointSlices is a peer;
     *                    setting it turns Kubernetes discovery on
     * @param namespace   namespace of the Service (default: POD_NAMESPACE, else the pod's
     *                    service-account namespace)
     * @param portName    name of the slice port that is the agent's HTTP listener ("http"); a slice with
     *                    one port uses it whatever its name
     * @param rackLabels  node labels that name the rack (ToR), first set wins
     * @param nodeRefresh how long the node's rack label is reused before the node is read again (10m)
     * @param keySecret   an Opaque Secret (in {@code namespace}) holding the probe key under {@code key};
     *                    the Helm chart makes it without data and the first agent fills it with a
     *                    random key (KubernetesProbeKey). Used when no {@code key_file} and no
     *                    FABRICD_PROBE_KEY is given; the Helm chart sets it unless a key or an
     *                    existing Secret is named
     * @param apiServer   API server URL (default: in-cluster, from the service account; else the kubeconfig)
     */
    public record Kubernetes(String service, String namespace, String portName,
                             // named here too: Jackson would otherwise take the list's accessor for a key of its own
                             @JsonProperty("rack_labels") List<String> rackLabels, Duration nodeRefresh,
                             String keySecret, String apiServer) {

        /** Every key at its default: discovery off. */
        public static Kubernetes defaults() {
            return bind(null, null, null, null, null, null, null);
        }

        /** The YAML binding: a key left out or null is its default. */
        @JsonCreator
        static Kubernetes bind(@JsonProperty("service") String service, @JsonProperty("namespace") String namespace,
                               @JsonProperty("port_name") String portName, @JsonProperty("rack_labels") List<String> rackLabels,
                               @JsonProperty("node_refresh") Duration nodeRefresh, @JsonProperty("key_secret") String keySecret,
                               @JsonProperty("api_server") String apiServer) {
            return new Kubernetes(service, namespace, or(portName, "http"),
                    or(rackLabels, List.of("fabricd.io/rack", "fabricd.io/tor", "rack", "tor")), or(nodeRefresh, Duration.ofMinutes(10)),
                    keySecret, apiServer);
        }

        public boolean enabled() {
            return service != null && !service.isBlank();
        }
    }

    public void validate() {
        if (kubernetes.enabled() && (kubernetes.portName() == null || kubernetes.portName().isBlank() || kubernetes.rackLabels() == null
                || kubernetes.nodeRefresh() == null || kubernetes.nodeRefresh().isNegative())) {
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
        if (timeout.toMillis() < 1 || interval.toMillis() < 100 || pacing.isNegative()) {
            throw new IllegalArgumentException("probe.interval must be at least 100ms, probe.timeout positive, probe.pacing not negative");
        }
        if (responderSpin.isNegative() || responderSpin.toMillis() > 1000) {
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
        hostPorts("probe.dns", dns, "NAME:PORT");
        hostPorts("probe.peers", peers, "HOST:PORT");
    }

    private static void hostPorts(String key, List<String> values, String form) {
        for (String v : values) {
            if (v.lastIndexOf(':') <= 0) {
                throw new IllegalArgumentException(key + ": '" + v + "' is not " + form);
            }
        }
    }
}
