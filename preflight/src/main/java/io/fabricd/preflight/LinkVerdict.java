package io.fabricd.preflight;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The gate's word on the link between two nodes (both directions together). EXCLUDE: its
 * measurements are bad; {@link #blame()} says whether the link itself is held bad or an end.
 *
 * @param evidence what the verdict rests on
 */
@JsonPropertyOrder({"a", "b", "verdict", "reasons", "evidence"})
public record LinkVerdict(String a, String b, Verdict verdict, List<String> reasons, Evidence evidence) {
    /** The blame of a bad link that is the link's own; else a node's name, or {@link #BLAME_UNKNOWN}. */
    public static final String BLAME_LINK = "link";
    public static final String BLAME_UNKNOWN = "unknown";
    /** The blame of a bad link a switch or an uplink explains: the JSON's {@code fabric} section names which. */
    public static final String BLAME_FABRIC = "fabric";

    public LinkVerdict {
        reasons = List.copyOf(reasons);
    }

    /**
     * What a link's verdict rests on (the JSON object {@code evidence} of {@code fabricd preflight
     * --format json}); a null part is not written, but for the round trips and the bandwidth ratio (null: not measured).
     *
     * @param lossRatio      of the probes of every transport together; {@code medianLossRatio} the set's
     * @param p50Seconds     the round trip of the transport most of its probes were answered over, and the
     *                       set's median of it ({@code medianP50Seconds})
     * @param p50ByTransport of a link probed over more than one transport: each one's (a round trip is
     *                       compared within its transport); else null
     * @param bandwidthRatio the worst of its bandwidth tests' ratios
     * @param rate           what the test that gave that ratio moved and the ceiling it was held to, written in its place as
     *                       two keys of this object; null when no test moved data
     * @param bandwidthWhy   why no ratio was measured, or how the test failed after the peer accepted it
     * @param probeWhy       of a link probed too little: why an attempt to probe it gave nothing
     * @param blame          of a bad link: {@link #BLAME_LINK}, a node's name, {@link #BLAME_FABRIC} or {@link #BLAME_UNKNOWN}; else null
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonPropertyOrder({"sent", "lost", "loss_ratio", "median_loss_ratio", "p50_seconds", "median_p50_seconds", "p50_by_transport",
        "bandwidth_ratio", "rate", "bandwidth_why", "transports", "probe_why", "blame"})
    public record Evidence(long sent, long lost, @JsonProperty("loss_ratio") double lossRatio,
                           @JsonProperty("median_loss_ratio") double medianLossRatio,
                           @JsonProperty("p50_seconds") @JsonInclude(JsonInclude.Include.ALWAYS) Double p50Seconds,
                           @JsonProperty("median_p50_seconds") @JsonInclude(JsonInclude.Include.ALWAYS) Double medianP50Seconds,
                           @JsonProperty("p50_by_transport") Map<String, RoundTrip> p50ByTransport,
                           @JsonProperty("bandwidth_ratio") @JsonInclude(JsonInclude.Include.ALWAYS) Double bandwidthRatio,
                           @JsonUnwrapped Rate rate, @JsonProperty("bandwidth_why") String bandwidthWhy, List<String> transports,
                           @JsonProperty("probe_why") String probeWhy, String blame) {
        public Evidence {
            p50ByTransport = p50ByTransport == null ? null : Collections.unmodifiableMap(new TreeMap<>(p50ByTransport));
            transports = List.copyOf(transports);
        }

        /** With the blame of a bad link. */
        Evidence withBlame(String b) {
            return new Evidence(sent, lost, lossRatio, medianLossRatio, p50Seconds, medianP50Seconds, p50ByTransport, bandwidthRatio, rate,
                    bandwidthWhy, transports, probeWhy, b);
        }
    }

    /** One transport's round trip and the set's median of it (null when no link had enough of its probes). */
    public record RoundTrip(@JsonProperty("p50_seconds") double p50Seconds, @JsonProperty("median_p50_seconds") Double medianP50Seconds) {
    }

    /** What a bandwidth test moved and the ceiling it was held to (null when unknown), in bits per second. */
    public record Rate(@JsonProperty("bandwidth_bits_per_second") double bitsPerSecond,
                       @JsonProperty("bandwidth_ceiling_bits_per_second") Double ceilingBitsPerSecond) {
    }

    /**
     * For a bad link: {@link #BLAME_LINK} when the link itself is bad (both ends otherwise
     * good), a node's name when that end explains it, {@link #BLAME_FABRIC} when a switch or an
     * uplink the set's bad links share does, {@link #BLAME_UNKNOWN} when it is not known which; null
     * for a link that is not bad.
     */
    public String blame() {
        return evidence.blame();
    }

    /** Whether this link itself, not one of its ends, is bad. */
    public boolean badLink() {
        return verdict == Verdict.EXCLUDE && BLAME_LINK.equals(blame());
    }
}
