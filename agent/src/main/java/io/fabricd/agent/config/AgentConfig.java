package io.fabricd.agent.config;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.fabricd.collectors.CollectorConfig;
import io.fabricd.collectors.HostCollection;
import io.fabricd.collectors.source.StableReads;
import io.fabricd.diagnosis.Diagnosis;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.probes.ProbeConfig;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * fabricd's configuration file (YAML, {@code --config FILE}). Every key is optional; the defaults
 * are documented in docs/configuration.md and are what an absent file gives.
 */
public final class AgentConfig {

    /** {@code listen}: HTTP address of {@code fabricd run}; {@code --listen} overrides it. */
    @JsonProperty("listen")
    public String listen = "0.0.0.0:9530";

    @JsonProperty("collection")
    public Collection collection = new Collection();

    /**
     * {@code state_dir}: where the agent keeps what must survive its restarts (the host's expected
     * inventory, docs/alerts.md); {@code --state-dir} overrides it. Default: /var/lib/fabricd when
     * reading the live host, none (memory only) for --root and --demo.
     */
    @JsonProperty("state_dir")
    public String stateDir;

    /** {@code http:} limits that keep slow and bad clients from holding the server. */
    @JsonProperty("http")
    public Http http = new Http();

    @JsonProperty("rdma")
    public Rdma rdma = new Rdma();

    @JsonProperty("netdev")
    public Netdev netdev = new Netdev();

    /** {@code probe:} the pingmesh (docs/probes.md). */
    @JsonProperty("probe")
    public ProbeConfig probe = ProbeConfig.defaults();

    /** {@code diagnosis:} thresholds and expectations of the checks (docs/checks.md). */
    @JsonProperty("diagnosis")
    public DiagnosisConfig diagnosis = DiagnosisConfig.DEFAULT;

    /**
     * The checks' configuration: the {@code diagnosis:} section with the probe checks' thresholds,
     * which users set beside the probes (probe.loss_threshold, probe.latency_threshold) and the
     * bandwidth tests (bandwidth.min_ratio).
     */
    public DiagnosisConfig judging() {
        DiagnosisConfig.Probes d = DiagnosisConfig.Probes.DEFAULT;
        return diagnosis.withProbes(new DiagnosisConfig.Probes(probe.lossThreshold(), d.minProbes(),
                probe.latencyThreshold().toNanos() / 1e9, d.outlierFactor(), bandwidth.minRatio));
    }

    /** Bandwidth tests served to peers (docs/bandwidth.md); needs the probe key, as the endpoint API does. */
    @JsonProperty("bandwidth")
    public Bandwidth bandwidth = new Bandwidth();

    public static final class Bandwidth {
        /** Serve RDMA WRITE bandwidth tests to peers that hold the probe key. */
        @JsonProperty("serve")
        public boolean serve = true;

        /** Longest test served. */
        @JsonProperty("max_duration")
        public Duration maxDuration = Duration.ofSeconds(30);

        /** Most memory registered for one test: message size x queue pairs. */
        @JsonProperty("max_buffer_bytes")
        public long maxBufferBytes = 64L << 20;

        /** Most queue pairs of one test. */
        @JsonProperty("max_qps")
        public int maxQps = 16;

        /** Least time between the starts of two tests served. */
        @JsonProperty("min_interval")
        public Duration minInterval = Duration.ofSeconds(10);

        /** How often this agent tests the bandwidth to the next peer of its probe plan; 0s: never. */
        @JsonProperty("interval")
        public Duration interval = Duration.ZERO;

        /** Duration, message size and queue pairs of those scheduled tests. */
        @JsonProperty("duration")
        public Duration duration = Duration.ofSeconds(5);

        @JsonProperty("size")
        public long size = 65_536;

        @JsonProperty("qps")
        public int qps = 1;

        /** A link delivering less than this share of its ceiling is reported (bandwidth_low). */
        @JsonProperty("min_ratio")
        public double minRatio = 0.8;

        void validate() {
            if (maxDuration == null || maxDuration.toMillis() < 1 || maxDuration.toMinutes() > 60) {
                throw new IllegalArgumentException("bandwidth.max_duration must be between 1ms and 60m");
            }
            if (maxBufferBytes < 1 || maxBufferBytes > 1L << 34) {
                throw new IllegalArgumentException("bandwidth.max_buffer_bytes must be between 1 and 17179869184");
            }
            if (maxQps < 1 || maxQps > 64) {
                throw new IllegalArgumentException("bandwidth.max_qps must be between 1 and 64");
            }
            if (minInterval == null || minInterval.isNegative()) {
                throw new IllegalArgumentException("bandwidth.min_interval must be 0s or more");
            }
            if (interval == null || interval.isNegative() || !interval.isZero() && interval.toMinutes() < 1) {
                throw new IllegalArgumentException("bandwidth.interval must be 0s (off) or at least 1m");
            }
            if (duration == null || duration.toMillis() < 1 || duration.toMinutes() > 1) {
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

    /** {@code netdev:} the netdevs bound to RDMA ports. */
    public static final class Netdev {
        /**
         * Also export every ethtool statistic as fabric_netdev_stat_total{netdev,stat} (false). A
         * ConnectX port has several hundred: mind the cardinality (node_exporter#2096).
         */
        @JsonProperty("all_stats")
        public boolean allStats = false;
    }

    /** {@code collection:} when and how the host is read. */
    @JsonIgnoreProperties({"max_open_files"}) // an older release's setting: accepted, no effect
    public static final class Collection {
        /** Time between collections (10s). A scrape never triggers one. */
        @JsonProperty("interval")
        public Duration interval = Duration.ofSeconds(10);

        /** Bound on one sysfs read on the live host (2s); a read that hangs fails with ETIMEDOUT. */
        @JsonProperty("read_timeout")
        public Duration readTimeout = Duration.ofSeconds(2);

        /**
         * A collection running this long is stuck (60s): /readyz answers 503 and
         * fabric_agent_collection_running_seconds shows it (a read hanging where read_timeout does
         * not reach, such as a pipe put into a --root folder).
         */
        @JsonProperty("stuck_after")
        public Duration stuckAfter = Duration.ofSeconds(60);

        /**
         * Hardware identity (PCI ids, NUMA nodes, max link speed/width, drivers, GUIDs, firmware) is
         * read once and kept for this long (5m), or until an RDMA device or PCI function comes or
         * goes; 0s reads everything on every collection (docs/configuration.md).
         */
        @JsonProperty("identity_refresh")
        public Duration identityRefresh = StableReads.DEFAULT_REFRESH;

        /**
         * Collectors not run (none): host, rdma, netdev, ethtool, dcb, verbs, qp, topology,
         * gpudirect. What they read is then absent, and the checks that need it say nothing.
         */
        @JsonProperty("disabled_collectors")
        public List<String> disabledCollectors = List.of();
    }

    /** {@code http:} limits of the HTTP server (docs/configuration.md). */
    public static final class Http {
        /**
         * A connection the server has not written to for this long is closed (30s), however much the
         * client sends: idle sockets and slowloris clients that trickle a request head never answered
         * cannot pile up. A keep-alive scraper idle longer than this reconnects.
         */
        @JsonProperty("idle_timeout")
        public Duration idleTimeout = Duration.ofSeconds(30);

        /** Largest request head (headers, 16 KiB) and request line (8 KiB); larger ones get 431 / 414. */
        @JsonProperty("max_header_bytes")
        public int maxHeaderBytes = 16 * 1024;

        @JsonProperty("max_request_line_bytes")
        public int maxRequestLineBytes = 8 * 1024;

        /**
         * Most connections open at once (256); one more closes the oldest idle connection, so an
         * idle-connection flood costs bounded memory and scrapes are still answered.
         */
        @JsonProperty("max_connections")
        public int maxConnections = 256;

        /** Most requests in flight at once (40, node_exporter's --web.max-requests); one more gets 503. */
        @JsonProperty("max_requests")
        public int maxRequests = 40;

        /**
         * A web configuration file in the Prometheus exporters' format (TLS, client certificates,
         * basic auth; docs/security.md); none: plain HTTP for everyone. --web.config.file overrides it.
         */
        @JsonProperty("web_config_file")
        public String webConfigFile;
    }

    /** {@code rdma:} the RDMA port collector. */
    public static final class Rdma {
        /** Device name globs to read (all). */
        @JsonProperty("include_devices")
        public List<String> includeDevices = List.of("*");

        /** Device name globs never to read (none); wins over include_devices. */
        @JsonProperty("exclude_devices")
        public List<String> excludeDevices = List.of();
    }

    public CollectorConfig collectorConfig() {
        return new CollectorConfig(rdma.includeDevices, rdma.excludeDevices,
                collection.disabledCollectors == null ? Set.of() : new HashSet<>(collection.disabledCollectors));
    }

    /** Checks values a YAML parser accepts but fabricd cannot use. */
    public void validate() {
        if (collection.interval == null || collection.interval.compareTo(Duration.ofMillis(100)) < 0) {
            throw new IllegalArgumentException("collection.interval must be at least 100ms");
        }
        if (collection.readTimeout == null || collection.readTimeout.isNegative() || collection.readTimeout.isZero()) {
            throw new IllegalArgumentException("collection.read_timeout must be positive");
        }
        if (collection.stuckAfter == null || collection.stuckAfter.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("collection.stuck_after must be at least 1s");
        }
        if (collection.identityRefresh == null || collection.identityRefresh.isNegative()) {
            throw new IllegalArgumentException("collection.identity_refresh must be 0s or more");
        }
        if (http == null) {
            http = new Http();
        }
        if (http.idleTimeout == null || http.idleTimeout.toMillis() < 100 || http.idleTimeout.compareTo(Duration.ofDays(1)) > 0) {
            // the server takes milliseconds as an int: a larger value would wrap (4294967296ms is 0, no timeout)
            throw new IllegalArgumentException("http.idle_timeout must be between 100ms and 24h");
        }
        if (http.maxHeaderBytes < 1024 || http.maxRequestLineBytes < 256) {
            throw new IllegalArgumentException("http: max_header_bytes must be at least 1024, max_request_line_bytes at least 256");
        }
        if (http.maxConnections < 4 || http.maxRequests < 1 || http.maxRequests > http.maxConnections) {
            throw new IllegalArgumentException("http: max_connections must be at least 4, max_requests between 1 and max_connections");
        }
        ListenAddress.parse(listen);
        HostCollection.validate(collectorConfig());
        if (diagnosis == null) {
            diagnosis = DiagnosisConfig.DEFAULT;
        }
        diagnosis.validate(Diagnosis.checkIds());
        if (probe == null) {
            probe = ProbeConfig.defaults();
        }
        probe.validate();
        if (bandwidth == null) {
            bandwidth = new Bandwidth();
        }
        bandwidth.validate();
    }
}
