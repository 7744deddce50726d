package io.fabricd.gate.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import io.fabricd.model.OneLine;
import io.fabricd.model.finding.Subject;
import java.io.IOException;
import java.util.List;

/**
 * The preflight wire format (docs/preflight.md): the request and the answer of each path an agent
 * serves the gate, one record each, read and written by both sides with {@link #REQUESTS} (an
 * agent reading a request: unknown fields ignored, no number silently truncated) and
 * {@link #ANSWERS} (the gate reading an answer: unknown fields ignored). Every record carries
 * {@code version} ({@link #VERSION}); one without it is of an older build, which wrote the same
 * fields. A probe count an agent gives is read as {@link Count}: one outside 0 to
 * {@link #MAX_COUNT} (negative, fractional, not a number) reads as -1, which the gate drops.
 */
public final class PreflightWire {
    /** The version this build writes. */
    public static final int VERSION = 1;
    public static final String STATE = "/api/v1/preflight/state";
    public static final String PROBE = "/api/v1/preflight/probe";
    public static final String BANDWIDTH = "/api/v1/preflight/bandwidth";
    /** The paths, in the order above. */
    public static final List<String> PATHS = List.of(STATE, PROBE, BANDWIDTH);
    /** More probes than one window or round of an agent holds by far (10 a second for three years). */
    public static final long MAX_COUNT = 1_000_000_000L;
    public static final ObjectMapper REQUESTS = new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT);
    public static final ObjectMapper ANSWERS = new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private PreflightWire() {
    }

    /** A record that says which version of the format it is (null: an older build's, which wrote this version's fields). */
    public interface Versioned {
        Integer version();
    }

    /** {@code POST /api/v1/preflight/state}: the agents of the set (HOST:PORT), whose windows go first when the answer must be cut. */
    public record StateRequest(Integer version, List<String> peers) implements Versioned {
    }

    /**
     * The state: the agent's node (the name it goes by among its peers) and host, its latest
     * collection's findings (the objects {@code fabricd diagnose --format json} prints), its probe
     * windows, when the answer was cut to fit how many of each were left out, and where the host sits
     * in the fabric when it knows (absent: unknown, or an agent of an older build).
     */
    public record StateAnswer(Integer version, String node, String host, @JsonProperty("collected_at") String collectedAt,
                              @JsonInclude(JsonInclude.Include.NON_NULL) @JsonProperty("collection_interval_seconds") Double intervalSeconds,
                              List<JsonNode> findings, @JsonProperty("probes") List<Window> windows,
                              @JsonInclude(JsonInclude.Include.NON_NULL) @JsonProperty("left_out") LeftOut leftOut,
                              @JsonInclude(JsonInclude.Include.NON_NULL) Placement placement) implements Versioned {
        /** Without a placement. */
        public StateAnswer(Integer version, String node, String host, String collectedAt, Double intervalSeconds, List<JsonNode> findings,
                           List<Window> windows, LeftOut leftOut) {
            this(version, node, host, collectedAt, intervalSeconds, findings, windows, leftOut, null);
        }
    }

    /**
     * Where the agent's host sits: the switches above it, tier 0 (its leaf) first, its accelerator
     * (NVLink) domain or null, and where that was learned ({@code slurm}, {@code topograph},
     * {@code labels}, {@code file}, {@code lldp}); the model's {@code Placement} without the node.
     */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record Placement(List<String> switches, String accelerator, String source) {
    }

    /** How much a state answer left out to fit. */
    public record LeftOut(int findings, int probes) {
    }

    /** One finding of a state answer, as the gate reads it (a subject's parts this build does not know left out). */
    public record Finding(String check, String severity, String summary, String remediation, Subject subject) {
    }

    /**
     * One probe window: to {@code peer} (its name, as the peer's endpoint gave it) at
     * {@code peerAddress} (HOST:PORT as the agent probes it) over {@code transport} at {@code size}
     * bytes; the holds are the median and the 90th percentile of how long the peer's responder held
     * the probes (null: not said).
     */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record Window(String peer, @JsonProperty("peer_address") String peerAddress, String transport, int size,
                         @JsonDeserialize(using = Count.class) long sent, @JsonDeserialize(using = Count.class) long lost,
                         @JsonDeserialize(using = Count.class) long late, @JsonProperty("p50_seconds") Double p50Seconds,
                         @JsonProperty("p99_seconds") Double p99Seconds, @JsonProperty("hold_p50_seconds") Double holdP50Seconds,
                         @JsonProperty("hold_p90_seconds") Double holdP90Seconds) {
    }

    /** {@code POST /api/v1/preflight/probe}: a round of {@code count} probes of {@code size} bytes to each of {@code peers}. */
    public record ProbeRequest(Integer version, List<String> peers, Integer count, Integer size) implements Versioned {
    }

    /** The round: the requester's node and one result per peer, in the request's order. */
    public record ProbeAnswer(Integer version, String node, List<PeerResult> results) implements Versioned {
    }

    /** One peer's probes added up (the holds as in {@link Window}), or why there are none. */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record PeerResult(String peer, @JsonProperty("peer_host") String peerHost, @JsonDeserialize(using = Count.class) long sent,
                             @JsonDeserialize(using = Count.class) long lost, @JsonDeserialize(using = Count.class) long late,
                             @JsonProperty("p50_seconds") Double p50Seconds, @JsonProperty("p99_seconds") Double p99Seconds,
                             @JsonProperty("hold_p50_seconds") Double holdP50Seconds,
                             @JsonProperty("hold_p90_seconds") Double holdP90Seconds, String error) {
        /** Why there are none, as one line. */
        public static PeerResult failed(String peer, String host, String why) {
            return new PeerResult(peer, host, 0, 0, 0, null, null, null, null, OneLine.of(why));
        }
    }

    /** {@code POST /api/v1/preflight/bandwidth}: one test into {@code peer}; null duration and size: the agent's defaults. */
    public record BandwidthRequest(Integer version, String peer, @JsonProperty("duration_ms") Long durationMs, Long size) implements Versioned {
    }

    /** The test: its rate, the path's ceiling and their ratio (null: no ceiling known, {@code limit} says why). */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record BandwidthAnswer(Integer version, String node, String peer, @JsonProperty("bits_per_second") Double bitsPerSecond,
                                  @JsonProperty("ceiling_bits_per_second") Double ceilingBitsPerSecond, Double ratio, String limit) implements Versioned {
    }

    /** A probe count: 0 to {@link #MAX_COUNT}, else -1 (absent or null: 0). */
    public static final class Count extends JsonDeserializer<Long> {
        @Override
        public Long deserialize(JsonParser p, DeserializationContext ctx) throws IOException {
            JsonNode v = p.readValueAsTree();
            return v.canConvertToExactIntegral() && v.canConvertToLong() && v.asLong() >= 0 && v.asLong() <= MAX_COUNT ? v.asLong() : -1L;
        }

        @Override
        public Long getNullValue(DeserializationContext ctx) {
            return 0L;
        }
    }
}
