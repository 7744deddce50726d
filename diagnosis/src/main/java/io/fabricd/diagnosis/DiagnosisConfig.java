package io.fabricd.diagnosis;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.fabricd.model.HostModel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The {@code diagnosis:} section of fabricd's configuration file, immutable. Every key is optional:
 * an absent (or empty) key is its default, documented with its source in docs/checks.md and
 * docs/configuration.md. Expectations left unset (null) are derived from the host itself.
 *
 * @param disabledChecks    check ids not to run (none)
 * @param expectRdmaDevices whether this host must have RDMA devices (true): a host without any is a
 *                          critical {@code hardware_missing} finding, unless this is false or an
 *                          accepted inventory has none
 * @param bootGrace         for this long after the host booted, a device that is not there yet or an
 *                          expected port that is not up yet is info, not critical (drivers probe and
 *                          links train while a host boots); 10m
 * @param portErrors        counter name ({@code counters/} or {@code hw_counters/}) to the rate above
 *                          which {@code port_errors_rising} reports it; over {@link #DEFAULT_PORT_ERRORS}
 * @param phyErrors         physical-layer error type of a RoCE port's netdev ({@code crc}, {@code symbol},
 *                          {@code pcs_symbol}, {@code link_down}) to its rate; over {@link #DEFAULT_PHY_ERRORS}
 * @param transportErrors   transport failure type ({@code retries_exceeded}, {@code ack_timeout}, ... as
 *                          docs/checks.md lists them) to its rate; over {@link #DEFAULT_TRANSPORT_ERRORS}
 * @param probes            the probe checks' thresholds: not a key of this section (users set them
 *                          under {@code probe:} and {@code bandwidth:}), handed over by the agent
 */
public record DiagnosisConfig(
        @JsonProperty("disabled_checks") List<String> disabledChecks,
        @JsonProperty("roce") Roce roce,
        @JsonProperty("expect_rdma_devices") Boolean expectRdmaDevices,
        @JsonProperty("boot_grace") Duration bootGrace,
        @JsonProperty("link") Link link,
        @JsonProperty("port_errors") Map<String, Rate> portErrors,
        @JsonProperty("phy_errors") Map<String, Rate> phyErrors,
        @JsonProperty("lane_errors") LaneErrors laneErrors,
        @JsonProperty("transport_errors") Map<String, Rate> transportErrors,
        @JsonProperty("pause_storm") PauseStorm pauseStorm,
        @JsonProperty("qp") Qp qp,
        @JsonIgnore Probes probes) {

    public static final DiagnosisConfig DEFAULT = new DiagnosisConfig(null, null, null, null, null, null, null, null, null, null, null,
            null);

    public DiagnosisConfig {
        disabledChecks = disabledChecks == null ? List.of() : Collections.unmodifiableList(new ArrayList<>(disabledChecks));
        roce = roce == null ? new Roce(null, null) : roce;
        expectRdmaDevices = expectRdmaDevices == null || expectRdmaDevices;
        bootGrace = bootGrace == null ? Duration.ofMinutes(10) : bootGrace;
        link = link == null ? new Link(null, null) : link;
        portErrors = rates(portErrors);
        phyErrors = rates(phyErrors);
        laneErrors = laneErrors == null ? new LaneErrors(null, null) : laneErrors;
        transportErrors = rates(transportErrors);
        pauseStorm = pauseStorm == null ? new PauseStorm(null, null) : pauseStorm;
        qp = qp == null ? new Qp(null, null, null) : qp;
        probes = probes == null ? Probes.DEFAULT : probes;
    }

    /** A rate map as given (a key without a rate stays, for {@link #validate} to name it). */
    private static Map<String, Rate> rates(Map<String, Rate> m) {
        return m == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(m));
    }

    public DiagnosisConfig withExpectRdmaDevices(boolean expect) {
        return new DiagnosisConfig(disabledChecks, roce, expect, bootGrace, link, portErrors, phyErrors, laneErrors, transportErrors,
                pauseStorm, qp, probes);
    }

    /** This configuration with these probe thresholds (the agent's, from probe: and bandwidth:). */
    public DiagnosisConfig withProbes(Probes p) {
        return new DiagnosisConfig(disabledChecks, roce, expectRdmaDevices, bootGrace, link, portErrors, phyErrors, laneErrors,
                transportErrors, pauseStorm, qp, p);
    }

    /** True while {@code m}'s host booted less than boot_grace before the collection; false when its boot time is unknown. */
    public boolean booting(HostModel m) {
        if (m.facts() == null || m.facts().bootTime() == null) {
            return false;
        }
        long up = m.collectedAt().getEpochSecond() - m.facts().bootTime();
        return up >= 0 && up < bootGrace.getSeconds();
    }

    /**
     * Default thresholds of {@code port_errors_rising}: NVIDIA NVSentinel's NIC health monitor
     * (symbol errors above 120/h is the IBTA 10^-12 bit error rate limit; link_error_recovery
     * 5/min; port_rcv_errors 10/s; link_downed, local_link_integrity_errors and
     * excessive_buffer_overrun_errors on any increase).
     */
    public static final Map<String, Rate> DEFAULT_PORT_ERRORS = Map.of(
            "symbol_error", Rate.parse("120/h"),
            "link_error_recovery", Rate.parse("5/m"),
            "link_downed", Rate.parse("0"),
            "local_link_integrity_errors", Rate.parse("0"),
            "excessive_buffer_overrun_errors", Rate.parse("0"),
            "port_rcv_errors", Rate.parse("10/s"));

    /**
     * Default thresholds for a RoCE port's physical layer (its netdev's driver statistics): CRC,
     * symbol and PCS symbol errors above 120/h (the bound port_errors_rising uses for InfiniBand
     * symbol errors: a 10^-12 bit error rate), any link down event.
     */
    public static final Map<String, Rate> DEFAULT_PHY_ERRORS = Map.of(
            "crc", Rate.parse("120/h"),
            "symbol", Rate.parse("120/h"),
            "pcs_symbol", Rate.parse("120/h"),
            "link_down", Rate.parse("0"));

    /**
     * Default thresholds of {@code transport_errors}: a requester that gave up (retries or RNR retries
     * exceeded: the application saw a failed work request) on any increase; retransmissions after an
     * ACK timeout above 1/s; sequence errors, implied NAKs, out-of-sequence packets and duplicate
     * requests (packets lost in the fabric) above 10/s; RNR NAKs (the peer posts too few receives)
     * above 100/s; error completions, remote access and invalid request errors above 1/min;
     * missing responses and retransmitted iWARP segments above 1/s; remote operation and local
     * errors above 1/min; discards above 10/s; work requests flushed (what every QP that enters the
     * error state leaves, a job's end included) only above 100/s.
     */
    public static final Map<String, Rate> DEFAULT_TRANSPORT_ERRORS = Map.ofEntries(
            Map.entry("retries_exceeded", Rate.parse("0")),
            Map.entry("rnr_retries_exceeded", Rate.parse("0")),
            Map.entry("ack_timeout", Rate.parse("1/s")),
            Map.entry("sequence_error", Rate.parse("10/s")),
            Map.entry("implied_nak", Rate.parse("10/s")),
            Map.entry("out_of_sequence", Rate.parse("10/s")),
            Map.entry("duplicate_request", Rate.parse("10/s")),
            Map.entry("rnr_nak", Rate.parse("100/s")),
            Map.entry("cqe_error", Rate.parse("1/m")),
            Map.entry("remote_access", Rate.parse("1/m")),
            Map.entry("remote_invalid_request", Rate.parse("1/m")),
            Map.entry("missing_response", Rate.parse("1/s")),
            Map.entry("retransmitted_segments", Rate.parse("1/s")),
            Map.entry("remote_operation", Rate.parse("1/m")),
            Map.entry("local_error", Rate.parse("1/m")),
            Map.entry("flushed", Rate.parse("100/s")),
            Map.entry("discards", Rate.parse("10/s")));

    /**
     * {@code roce:} the RoCE expectations; unset values are derived from the host.
     *
     * @param priority the priority RDMA traffic uses (0-7); default: derived (docs/checks.md, pfc_missing)
     * @param trust    the trust mode every RoCE port should have ("dscp" or "pcp", any case); default: derived
     */
    public record Roce(@JsonProperty("priority") Integer priority, @JsonProperty("trust") String trust) {
        public Roce {
            trust = trust == null ? null : trust.toLowerCase(Locale.ROOT); // DSCP, Dscp: as the tools print it
        }
    }

    /**
     * {@code link:} link_degraded and link_down.
     *
     * @param expectedRateGbps rate every RDMA port should run at, Gb/s (e.g. 400); default: the best sibling port
     * @param expectUp         ports that must be up, as {@code DEVICE/PORT} ({@code mlx5_0/1}; a star matches any run
     *                         of characters); a down port matched here is critical for link_down even before it was
     *                         ever seen up. Default: none (the inventory and same-card siblings decide, docs/alerts.md)
     */
    public record Link(@JsonProperty("expected_rate_gbps") Double expectedRateGbps,
                       @JsonProperty("expect_up") List<String> expectUp) {
        public Link {
            expectUp = expectUp == null ? List.of() : Collections.unmodifiableList(new ArrayList<>(expectUp));
        }
    }

    /**
     * {@code pause_storm:} thresholds of pause_storm.
     *
     * @param txPauseFramesPerSecond PFC pause frames a port may send per second and priority (2000: a NIC
     *                               sending more than 2000/s took down half a customer's servers in Guo et
     *                               al., SIGCOMM 2016, §6.2)
     * @param rxPauseTimeFraction    share of the interval a priority may spend paused by its peer (0.5)
     */
    public record PauseStorm(@JsonProperty("tx_pause_frames_per_second") Double txPauseFramesPerSecond,
                             @JsonProperty("rx_pause_time_fraction") Double rxPauseTimeFraction) {
        public PauseStorm {
            txPauseFramesPerSecond = txPauseFramesPerSecond == null ? 2000.0 : txPauseFramesPerSecond;
            rxPauseTimeFraction = rxPauseTimeFraction == null ? 0.5 : rxPauseTimeFraction;
        }
    }

    /**
     * {@code lane_errors:} when one physical lane of a RoCE port is "far worse than its siblings" (a
     * bad lane of a cable or optic): at least {@code minErrors} errors (over the interval, or in total
     * without history; 1000) and at least {@code ratio} times the worst of the other lanes (10).
     */
    public record LaneErrors(@JsonProperty("min_errors") Long minErrors, @JsonProperty("ratio") Double ratio) {
        public LaneErrors {
            minErrors = minErrors == null ? 1000L : minErrors;
            ratio = ratio == null ? 10.0 : ratio;
        }
    }

    /**
     * {@code qp:} qp_pressure.
     *
     * @param maxShare  share of the device's max_qp in use above which it is reported (0.8)
     * @param errGrowth growth of QPs in the ERR state between two collections that is reported (1)
     * @param maxErr    QPs in the ERR state at once that are reported even without history (32)
     */
    public record Qp(@JsonProperty("max_share") Double maxShare, @JsonProperty("err_growth") Integer errGrowth,
                     @JsonProperty("max_err") Integer maxErr) {
        public Qp {
            maxShare = maxShare == null ? 0.8 : maxShare;
            errGrowth = errGrowth == null ? 1 : errGrowth;
            maxErr = maxErr == null ? 32 : maxErr;
        }
    }

    /**
     * The thresholds of the probe checks.
     *
     * @param lossThreshold           probe.loss_threshold: lost share above which probe_loss reports a peer
     * @param minProbes               probes sent over the window before probe_loss judges (50)
     * @param latencyThresholdSeconds probe.latency_threshold: p99 RTT above which probe_latency reports a peer
     * @param outlierFactor           how many times its peers' median p50 makes a peer's p50 an outlier (5)
     * @param bandwidthMinRatio       bandwidth.min_ratio: share of the ceiling below which bandwidth_low reports a test
     */
    public record Probes(double lossThreshold, int minProbes, double latencyThresholdSeconds, double outlierFactor,
                         double bandwidthMinRatio) {
        public static final Probes DEFAULT = new Probes(0.02, 50, 0.005, 5, 0.8);
    }

    /** Thresholds of port_errors_rising: the defaults with the configured entries over them. */
    public Map<String, Rate> portErrorThresholds() {
        return over(DEFAULT_PORT_ERRORS, portErrors);
    }

    /** Thresholds of the netdev physical layer in port_errors_rising: the defaults with the configured entries over them. */
    public Map<String, Rate> phyErrorThresholds() {
        return over(DEFAULT_PHY_ERRORS, phyErrors);
    }

    /** Thresholds of transport_errors by type: the defaults with the configured entries over them. */
    public Map<String, Rate> transportErrorThresholds() {
        return over(DEFAULT_TRANSPORT_ERRORS, transportErrors);
    }

    private static Map<String, Rate> over(Map<String, Rate> defaults, Map<String, Rate> configured) {
        Map<String, Rate> m = new TreeMap<>(defaults);
        m.putAll(configured);
        return m;
    }

    public boolean enabled(String check) {
        return !disabledChecks.contains(check);
    }

    /** Checks values a YAML parser accepts but fabricd cannot use; the message names the key. */
    public void validate(Collection<String> knownChecks) {
        for (String c : disabledChecks) {
            require(knownChecks.contains(c), "diagnosis.disabled_checks: unknown check '" + c + "'; known: " + knownChecks);
        }
        require(roce.priority() == null || roce.priority() >= 0 && roce.priority() <= 7,
                "diagnosis.roce.priority must be 0-7, not " + roce.priority());
        require(roce.trust() == null || roce.trust().equals("dscp") || roce.trust().equals("pcp"),
                "diagnosis.roce.trust must be dscp or pcp, not '" + roce.trust() + "'");
        for (String e : link.expectUp()) {
            require(e != null && e.matches("[A-Za-z0-9_.*-]+/[0-9*]+"),
                    "diagnosis.link.expect_up: '" + e + "' is not DEVICE/PORT (like mlx5_0/1 or mlx5_*/1)");
        }
        require(!bootGrace.isNegative(), "diagnosis.boot_grace must be a duration of 0 or more (like 10m)");
        require(link.expectedRateGbps() == null || link.expectedRateGbps() > 0, "diagnosis.link.expected_rate_gbps must be positive");
        require(pauseStorm.txPauseFramesPerSecond() > 0, "diagnosis.pause_storm.tx_pause_frames_per_second must be positive");
        require(pauseStorm.rxPauseTimeFraction() > 0 && pauseStorm.rxPauseTimeFraction() <= 1,
                "diagnosis.pause_storm.rx_pause_time_fraction must be in (0, 1]");
        require(qp.maxShare() > 0 && qp.maxShare() <= 1, "diagnosis.qp.max_share must be in (0, 1]");
        require(qp.maxErr() >= 1, "diagnosis.qp.max_err must be at least 1");
        require(qp.errGrowth() >= 1, "diagnosis.qp.err_growth must be at least 1");
        validateRates("port_errors", portErrors, null);
        validateRates("phy_errors", phyErrors, DEFAULT_PHY_ERRORS.keySet());
        validateRates("transport_errors", transportErrors, DEFAULT_TRANSPORT_ERRORS.keySet());
        require(laneErrors.minErrors() >= 1, "diagnosis.lane_errors.min_errors must be at least 1");
        require(laneErrors.ratio() > 1, "diagnosis.lane_errors.ratio must be above 1");
    }

    /** Every key of a rate map is one of {@code known} (null: any) and has a rate. */
    private static void validateRates(String key, Map<String, Rate> rates, Set<String> known) {
        rates.forEach((k, v) -> {
            if (known != null && !known.contains(k)) {
                throw new IllegalArgumentException("diagnosis." + key + ": unknown type '" + k + "'; known: " + new TreeSet<>(known));
            }
            require(v != null, "diagnosis." + key + "." + k + " needs a rate (like 120/h, 5/m, 10/s or 0)");
        });
    }

    private static void require(boolean valid, String message) {
        if (!valid) {
            throw new IllegalArgumentException(message);
        }
    }
}
