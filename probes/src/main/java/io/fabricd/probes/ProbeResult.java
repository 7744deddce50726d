package io.fabricd.probes;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The outcome of probing one peer at one size (interfaces.md, {@code probe --format json}).
 *
 * @param received answered within the per-probe timeout
 * @param late     answered after the timeout (not lost, not in the RTTs)
 * @param lost     never answered
 * @param rttNanos round-trip times of the answered probes without the responder's hold time, ascending
 * @param responderNanos the responder's own processing time per answered probe, ascending
 * @param hostNanos      the hosts' share per answered probe: the responder's hold time and, where the
 *                       kernel stamped the answer's arrival, the time until this side read it; ascending
 * @param networkNanos   per answered probe whose round trip the local NIC timestamped: that
 *                       hardware round trip minus the responder's processing time, ascending; null
 *                       without hardware completion timestamps
 * @param duplicated answers that came again for a probe already answered (counted once)
 * @param reordered  answers that arrived after the answer to a later probe
 * @param responderOverloaded an answer said the responder dropped requests itself meanwhile (its
 *                       rate limit, a flood at it): loss then need not be the network's
 */
@JsonPropertyOrder({"peer", "transport", "local_device", "remote_device", "size", "sent", "received", "late", "lost",
        "duplicated", "reordered", "rtt_seconds", "responder_seconds", "host_seconds", "network_seconds", "responder_overloaded"})
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ProbeResult(String peer, String transport, @JsonProperty("local_device") String localDevice,
                          @JsonProperty("remote_device") String remoteDevice, int size, int sent, int received, int late,
                          int lost, @JsonIgnore long[] rttNanos, @JsonIgnore long[] responderNanos,
                          @JsonIgnore long[] hostNanos, @JsonIgnore long[] networkNanos, int duplicated, int reordered,
                          @JsonProperty("responder_overloaded") boolean responderOverloaded) {

    /** min, p50, p99, max of the RTTs (the responder's hold time out) in seconds; null when nothing was answered. */
    @JsonProperty("rtt_seconds")
    public Map<String, Double> rttSeconds() {
        return summary(rttNanos);
    }

    @JsonProperty("responder_seconds")
    public Map<String, Double> responderSeconds() {
        return summary(responderNanos);
    }

    @JsonProperty("host_seconds")
    public Map<String, Double> hostSeconds() {
        return summary(hostNanos);
    }

    /** The network's share of the round trip (hardware timestamps only); null without them. */
    @JsonProperty("network_seconds")
    public Map<String, Double> networkSeconds() {
        return summary(networkNanos);
    }

    /** The q-quantile (nearest rank) of sorted values in seconds. */
    public static double quantile(long[] sorted, double q) {
        int i = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))] / 1e9;
    }

    private static Map<String, Double> summary(long[] sorted) {
        if (sorted == null || sorted.length == 0) {
            return null;
        }
        Map<String, Double> m = new LinkedHashMap<>();
        m.put("min", sorted[0] / 1e9);
        m.put("p50", quantile(sorted, 0.50));
        m.put("p99", quantile(sorted, 0.99));
        m.put("max", sorted[sorted.length - 1] / 1e9);
        return m;
    }
}
