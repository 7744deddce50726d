package io.fabricd.agent.config;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.fabricd.collectors.CollectorConfig;
import io.fabricd.collectors.run.HostCollection;
import io.fabricd.collectors.source.StableReads;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.diagnosis.run.Diagnosis;
import io.fabricd.probes.ProbeConfig;
import io.fabricd.topology.TopologyConfig;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * fabricd's configuration file (YAML, {@code --config FILE}), bound by {@link ConfigLoader}. Every
 * key is optional: a key left out (or given as null) takes the default documented in
 * docs/configuration.md, which is what an absent file gives ({@link #defaults()}).
 *
 * @param listen    HTTP address of {@code fabricd run} (0.0.0.0:9530); {@code --listen} overrides it
 * @param stateDir  where the agent keeps what must survive its restarts (the host's expected
 *                  inventory, docs/alerts.md); {@code --state-dir} overrides it. Default:
 *                  /var/lib/fabricd when reading the live host, none (memory only) for --root and --demo
 * @param http      limits that keep slow and bad clients from holding the server
 * @param probe     the pingmesh (docs/probes.md)
 * @param diagnosis thresholds and expectations of the checks (docs/checks.md)
 * @param bandwidth bandwidth tests served to peers (docs/bandwidth.md); needs the probe key, as the
 *                  endpoint API does
 * @param topology  where this host sits in the fabric: a topology file, topograph's Node labels (docs/topology.md)
 */
public record AgentConfig(@JsonProperty("listen") String listen, @JsonProperty("collection") Collection collection,
                          @JsonProperty("state_dir") String stateDir, @JsonProperty("http") Http http,
                          @JsonProperty("rdma") Rdma rdma, @JsonProperty("netdev") Netdev netdev,
                          @JsonProperty("probe") ProbeConfig probe, @JsonProperty("diagnosis") DiagnosisConfig diagnosis,
                          @JsonProperty("bandwidth") Bandwidth bandwidth, @JsonProperty("topology") TopologyConfig topology) {

    public AgentConfig {
        listen = listen == null ? "0.0.0.0:9530" : listen;
        collection = collection == null ? new Collection(null, null, null, null, null) : collection;
        http = http == null ? new Http(null, null, null, null, null, null) : http;
        rdma = rdma == null ? new Rdma(null, null) : rdma;
        netdev = netdev == null ? new Netdev(null) : netdev;
        probe = probe == null ? ProbeConfig.defaults() : probe;
        diagnosis = diagnosis == null ? DiagnosisConfig.DEFAULT : diagnosis;
        bandwidth = bandwidth == null ? new Bandwidth(null, null, null, null, null, null, null, null, null, null) : bandwidth;
        topology = topology == null ? TopologyConfig.defaults() : topology;
    }

    /** Every key at its default: what an absent or empty file gives. */
    public static AgentConfig defaults() {
        return new AgentConfig(null, null, null, null, null, null, null, null, null, null);
    }

    /** This configuration with another state_dir ({@code --state-dir}). */
    public AgentConfig withStateDir(String dir) {
        return new AgentConfig(listen, collection, dir, http, rdma, netdev, probe, diagnosis, bandwidth, topology);
    }

    /** This configuration with another http section ({@code --web.config.file}). */
    public AgentConfig withHttp(Http h) {
        return new AgentConfig(listen, collection, stateDir, h, rdma, netdev, probe, diagnosis, bandwidth, topology);
    }

    /** The name this agent goes by among its peers and in topology files: probe.node_name (or NODE_NAME), else {@code hostname}. */
    public String nodeName(String hostname) {
        String configured = probe.nodeName();
        return configured != null && !configured.isBlank() ? configured : hostname;
    }

    /**
     * The checks' configuration: the {@code diagnosis:} section with the probe checks' thresholds,
     * which users set beside the probes (probe.loss_threshold, probe.latency_threshold) and the
     * bandwidth tests (bandwidth.min_ratio).
     */
    public DiagnosisConfig judging() {
        DiagnosisConfig.Probes d = DiagnosisConfig.Probes.DEFAULT;
        return diagnosis.withProbes(new DiagnosisConfig.Probes(probe.lossThreshold(), d.minProbes(),
                probe.latencyThreshold().toNanos() / 1e9, d.outlierFactor(), bandwidth.minRatio()));
    }

    /**
     * The {@code bandwidth:} section.
     *
     * @param serve          serve RDMA WRITE bandwidth tests to peers that hold the probe key (true)
     * @param maxDuration    longest test served (30s)
     * @param maxBufferBytes most memory registered for one test: message size x queue pairs (64 MiB)
     * @param maxQps         most queue pairs of one test (16)
     * @param minInterval    least time between the starts of two tests served (10s)
     * @param interval       how often this agent tests the bandwidth to the next peer of its probe
     *                       plan; 0s: never (0s)
     * @param duration       duration (5s), message size (65536) and queue pairs (1) of those scheduled tests
     * @param minRatio       a link delivering less than this share of its ceiling is reported
     *                       (bandwidth_low; 0.8)
     */
    public record Bandwidth(@JsonProperty("serve") Boolean serve, @JsonProperty("max_duration") Duration maxDuration,
                            @JsonProperty("max_buffer_bytes") Long maxBufferBytes, @JsonProperty("max_qps") Integer maxQps,
                            @JsonProperty("min_interval") Duration minInterval, @JsonProperty("interval") Duration interval,
                            @JsonProperty("duration") Duration duration, @JsonProperty("size") Long size,
                            @JsonProperty("qps") Integer qps, @JsonProperty("min_ratio") Double minRatio) {
        public Bandwidth {
            serve = serve == null || serve;
            maxDuration = maxDuration == null ? Duration.ofSeconds(30) : maxDuration;
            maxBufferBytes = maxBufferBytes == null ? 64L << 20 : maxBufferBytes;
            maxQps = maxQps == null ? 16 : maxQps;
            minInterval = minInterval == null ? Duration.ofSeconds(10) : minInterval;
            interval = interval == null ? Duration.ZERO : interval;
            duration = duration == null ? Duration.ofSeconds(5) : duration;
            size = size == null ? 65_536 : size;
            qps = qps == null ? 1 : qps;
            minRatio = minRatio == null ? 0.8 : minRatio;
        }

        void validate() {
            if (maxDuration.toMillis() < 1 || maxDuration.toMinutes() > 60) {
                throw new IllegalArgumentException("bandwidth.max_duration must be between 1ms and 60m");
            }
            if (maxBufferBytes < 1 || maxBufferBytes > 1L << 34) {
                throw new IllegalArgumentException("bandwidth.max_buffer_bytes must be between 1 and 17179869184");
            }
            if (maxQps < 1 || maxQps > 64) {
                throw new IllegalArgumentException("bandwidth.max_qps must be between 1 and 64");
            }
            if (minInterval.isNegative()) {
                throw new IllegalArgumentException("bandwidth.min_interval must be 0s or more");
            }
            if (interval.isNegative() || !interval.isZero() && interval.toMinutes() < 1) {
                throw new IllegalArgumentException("bandwidth.interval must be 0s (off) or at least 1m");
            }
            if (duration.toMillis() < 1 || duration.toMinutes() > 1) {
                throw new IllegalArgumentException("bandwidth.duration must be between 1ms and 1m");
            }
            if (size < 1 || size > 1L << 30 || qps < 1 || qps > 64) {
                throw new IllegalArgumentException("bandwidth: size must be 1 to 1073741824 bytes, qps 1 to 64");
            }
            if (!(minRatio > 0 && minRatio <= 1)) {
                throw new IllegalArgumentException("bandwidth.min_ratio must be above 0 and at most 1");
            }
        }
    }

    /**
     * The {@code netdev:} section: the netdevs bound to RDMA ports.
     *
     * @param allStats also export every ethtool statistic as fabric_netdev_stat_total{netdev,stat}
     *                 (false). A ConnectX port has several hundred: mind the cardinality (node_exporter#2096)
     */
    public record Netdev(@JsonProperty("all_stats") Boolean allStats) {
        public Netdev {
            allStats = allStats != null && allStats;
        }
    }

    /**
     * The {@code collection:} section: when and how the host is read.
     *
     * @param interval           time between collections (10s); a scrape never triggers one
     * @param readTimeout        bound on one sysfs read on the live host (2s); a read that hangs fails
     *                           with ETIMEDOUT
     * @param stuckAfter         a collection running this long is stuck (60s): /readyz answers 503 and
     *                           fabric_agent_collection_running_seconds shows it (a read hanging where
     *                           read_timeout does not reach, such as a pipe put into a --root folder)
     * @param identityRefresh    hardware identity (PCI ids, NUMA nodes, max link speed/width, drivers,
     *                           GUIDs, firmware) is read once and kept for this long (5m), or until an
     *                           RDMA device or PCI function comes or goes; 0s reads everything on every
     *                           collection
     * @param disabledCollectors collectors not run (none); what they read is then absent, and the
     *                           checks that need it say nothing
     */
    @JsonIgnoreProperties({"max_open_files"}) // an older release's setting: accepted, no effect
    public record Collection(@JsonProperty("interval") Duration interval, @JsonProperty("read_timeout") Duration readTimeout,
                             @JsonProperty("stuck_after") Duration stuckAfter,
                             @JsonProperty("identity_refresh") Duration identityRefresh,
                             @JsonProperty("disabled_collectors") List<String> disabledCollectors) {
        public Collection {
            interval = interval == null ? Duration.ofSeconds(10) : interval;
            readTimeout = readTimeout == null ? Duration.ofSeconds(2) : readTimeout;
            stuckAfter = stuckAfter == null ? Duration.ofSeconds(60) : stuckAfter;
            identityRefresh = identityRefresh == null ? StableReads.DEFAULT_REFRESH : identityRefresh;
            disabledCollectors = disabledCollectors == null ? List.of() : List.copyOf(disabledCollectors);
        }
    }

    /**
     * The {@code http:} section: limits of the HTTP server (docs/configuration.md, docs/security.md).
     *
     * @param idleTimeout         a connection the server has not written to for this long is closed
     *                            (30s; 100ms to 24h), however much the client sends: idle sockets and
     *                            slowloris clients that trickle a request head never answered cannot
     *                            pile up. A keep-alive scraper idle longer than this reconnects
     * @param maxHeaderBytes      largest request head (16 KiB; 1 KiB to 1 MiB); a larger one gets 431
     * @param maxRequestLineBytes largest request line (8 KiB; 256 B to 64 KiB); a larger one gets 414
     * @param maxConnections      most connections open at once; 0 (the default): what the heap
     *                            allows (HeapBudget: 459 with the launcher's 96 MiB), and a larger
     *                            value is lowered to that with a warning at start (4 to 1048576). One
     *                            more closes a never-used or the longest idle connection, so a
     *                            connection flood costs bounded memory and scrapes are still answered
     * @param maxRequests         most requests in flight at once (64: above fifty scrapers at once,
     *                            which node_exporter's 40 refuses a quarter of; 1 to 65536, at most
     *                            max_connections); one more gets 503. /healthz and /readyz are
     *                            answered outside it
     * @param webConfigFile       a web configuration file in the Prometheus exporters' format (TLS,
     *                            client certificates, basic auth; docs/security.md); none: plain HTTP for
     *                            everyone. --web.config.file overrides it
     */
    public record Http(@JsonProperty("idle_timeout") Duration idleTimeout, @JsonProperty("max_header_bytes") Integer maxHeaderBytes,
                       @JsonProperty("max_request_line_bytes") Integer maxRequestLineBytes,
                       @JsonProperty("max_connections") Integer maxConnections, @JsonProperty("max_requests") Integer maxRequests,
                       @JsonProperty("web_config_file") String webConfigFile) {
        /** The most max_connections may be set to (the heap may allow less). */
        public static final int MAX_CONNECTIONS = 1 << 20;

        public Http {
            idleTimeout = idleTimeout == null ? Duration.ofSeconds(30) : idleTimeout;
            maxHeaderBytes = maxHeaderBytes == null ? 16 * 1024 : maxHeaderBytes;
            maxRequestLineBytes = maxRequestLineBytes == null ? 8 * 1024 : maxRequestLineBytes;
            maxConnections = maxConnections == null ? 0 : maxConnections;
            maxRequests = maxRequests == null ? 64 : maxRequests;
        }

        public Http withWebConfigFile(String file) {
            return new Http(idleTimeout, maxHeaderBytes, maxRequestLineBytes, maxConnections, maxRequests, file);
        }

        /** The most bytes of request head (request line and headers) one connection may send. */
        public int maxHeadBytes() {
            return maxHeaderBytes + maxRequestLineBytes; // at most 1 MiB + 64 KiB once validated
        }

        /** Each integer within its range: one line naming the key and the range. */
        void validate() {
            if (idleTimeout.toMillis() < 100 || idleTimeout.compareTo(Duration.ofDays(1)) > 0) {
                // the server takes milliseconds as an int: a larger value would wrap (4294967296ms is 0, no timeout)
                throw new IllegalArgumentException("http.idle_timeout must be between 100ms and 24h");
            }
            range("http.max_header_bytes", maxHeaderBytes, 1024, 1 << 20, "");
            range("http.max_request_line_bytes", maxRequestLineBytes, 256, 1 << 16, "");
            if (maxConnections != 0) {
                range("http.max_connections", maxConnections, 4, MAX_CONNECTIONS, "0 (what the heap allows) or ");
            }
            range("http.max_requests", maxRequests, 1, 1 << 16, "");
            if (maxConnections != 0 && maxRequests > maxConnections) {
                throw new IllegalArgumentException("http.max_requests must be at most http.max_connections (" + maxConnections
                        + "), not " + maxRequests);
            }
        }

        private static void range(String key, int value, int min, int max, String or) {
            if (value < min || value > max) {
                throw new IllegalArgumentException(key + " must be " + or + "between " + min + " and " + max + ", not " + value);
            }
        }
    }

    /**
     * The {@code rdma:} section: the RDMA port collector.
     *
     * @param includeDevices device name globs to read (all)
     * @param excludeDevices device name globs never to read (none); wins over include_devices
     */
    public record Rdma(@JsonProperty("include_devices") List<String> includeDevices,
                       @JsonProperty("exclude_devices") List<String> excludeDevices) {
        public Rdma {
            includeDevices = includeDevices == null ? List.of("*") : List.copyOf(includeDevices);
            excludeDevices = excludeDevices == null ? List.of() : List.copyOf(excludeDevices);
        }
    }

    public CollectorConfig collectorConfig() {
        return new CollectorConfig(rdma.includeDevices(), rdma.excludeDevices(), Set.copyOf(collection.disabledCollectors()));
    }

    /** Checks values a YAML parser accepts but fabricd cannot use. */
    public void validate() {
        if (collection.interval().compareTo(Duration.ofMillis(100)) < 0) {
            throw new IllegalArgumentException("collection.interval must be at least 100ms");
        }
        if (collection.readTimeout().isNegative() || collection.readTimeout().isZero()) {
            throw new IllegalArgumentException("collection.read_timeout must be positive");
        }
        if (collection.stuckAfter().compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("collection.stuck_after must be at least 1s");
        }
        if (collection.identityRefresh().isNegative()) {
            throw new IllegalArgumentException("collection.identity_refresh must be 0s or more");
        }
        http.validate();
        ListenAddress.parse(listen);
        HostCollection.validate(collectorConfig());
        diagnosis.validate(Diagnosis.checkIds());
        probe.validate();
        bandwidth.validate();
        topology.validate();
    }
}
