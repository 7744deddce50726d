package io.fabricd.model.metrics;

import static io.fabricd.model.metrics.MetricFamily.counter;
import static io.fabricd.model.metrics.MetricFamily.gauge;

import io.fabricd.model.metrics.MetricFamily.Type;
import java.util.List;

/** The families of the probes between agents, their responder, and the bandwidth tests. */
public final class ProbingMetrics {
    private ProbingMetrics() {
    }

    private static final String[] PEER = {"peer", "peer_rack", "transport", "size"};
    private static final String PER_PEER = "peer, with probe.per_peer_histograms";

    public static final MetricFamily RTT = new MetricFamily("fabric_probe_rtt_seconds", Type.HISTOGRAM, "seconds",
            "Round-trip time of answered probes, the responder's hold time taken out (where the kernel stamps arrivals, from just "
                    + "before the send to the answer's arrival at the socket); per peer rack, or per peer with "
                    + "probe.per_peer_histograms.", List.of("peer_rack", "transport", "size"), PER_PEER);
    public static final MetricFamily HOST = new MetricFamily("fabric_probe_host_seconds", Type.HISTOGRAM, "seconds",
            "The hosts' own share of an answered probe's round trip, apart from fabric_probe_rtt_seconds: the responder's hold time "
                    + "and, where the kernel stamps arrivals, the time until the requester read the answer; per peer rack, or per peer "
                    + "with probe.per_peer_histograms.", List.of("peer_rack", "transport", "size"), PER_PEER);
    public static final MetricFamily RTT_RECENT = gauge("fabric_probe_rtt_recent_seconds", "seconds",
            "Quantiles (0.5, 0.99) of the last 256 answered probes' round trips to each peer: the per-peer latency the alerts judge, "
                    + "in two series instead of a histogram's 23.", "peer", "peer_rack", "transport", "size", "quantile");
    public static final MetricFamily DUPLICATED = counter("fabric_probe_duplicated", null,
            "Answers that came again for a probe already answered (counted once, not in the RTTs twice).", PEER);
    public static final MetricFamily REORDERED = counter("fabric_probe_reordered", null,
            "Answers that arrived after the answer to a later probe (still answered, not lost).", PEER);
    public static final MetricFamily SENT = counter("fabric_probe_sent", null, "Probes sent.", PEER);
    public static final MetricFamily LOST = counter("fabric_probe_lost", null, "Probes never answered.", PEER);
    public static final MetricFamily LATE = counter("fabric_probe_late", null,
            "Probes answered after the per-probe timeout (not lost, not in the RTT histogram).", PEER);
    public static final MetricFamily RESPONDER_ANSWERED = counter("fabric_probe_responder_answered", null,
            "Probe requests this agent's responder answered.");
    public static final MetricFamily RESPONDER_HOLD = new MetricFamily("fabric_probe_responder_hold_seconds", Type.HISTOGRAM, "seconds",
            "How long this host's UDP probe responder held each request it answered, from its arrival at the socket (the kernel's "
                    + "stamp) to the answer's send: this host's own share of its peers' round trips, milliseconds on a starved or "
                    + "stalling host.", List.of(), null);
    public static final MetricFamily RESPONDER_PEER_SOCKETS = gauge("fabric_probe_responder_peer_sockets", null,
            "Known peers the UDP responder answers from a socket of their own (a flood at the probe port does not reach them).");
    public static final MetricFamily RESPONDER_DROPPED = counter("fabric_probe_responder_dropped", null,
            "Probe requests this agent's responder dropped, by reason (unauthenticated, malformed, rate_limited; overflow: left to "
                    + "the kernel under a flood and dropped there; stale: a request sent over 30 s ago by the requester's clock; "
                    + "replayed: a request answered before). Signed HTTP requests refused are fabric_agent_http_signed_refused_total.",
            "reason");

    public static final MetricFamily BANDWIDTH = gauge("fabric_bandwidth_bytes_per_second", "bytes_per_second",
            "Data bytes per second the last bandwidth test with a peer moved (RDMA WRITE; direction tx: this host wrote, rx: the peer "
                    + "wrote into this host).", "peer", "device", "direction");
    public static final MetricFamily BANDWIDTH_MESSAGES = gauge("fabric_bandwidth_messages_per_second", null,
            "RDMA WRITEs per second of the last bandwidth test with a peer.", "peer", "device", "direction");
    public static final MetricFamily BANDWIDTH_CEILING = gauge("fabric_bandwidth_ceiling_bytes_per_second", "bytes_per_second",
            "What the last tested path can carry at most: the lowest of the link after encoding and both NICs' PCIe (limit says "
                    + "which); absent when unknown.", "peer", "device", "direction", "limit");
    public static final MetricFamily BANDWIDTH_RATIO = gauge("fabric_bandwidth_ratio", null,
            "The last bandwidth test's data rate over its ceiling; absent when the ceiling is unknown.", "peer", "device", "direction");
    public static final MetricFamily BANDWIDTH_LAST_TEST = gauge("fabric_bandwidth_last_test_timestamp_seconds", "seconds",
            "When the last bandwidth test with a peer ended (Unix time).", "peer", "device", "direction");
}
