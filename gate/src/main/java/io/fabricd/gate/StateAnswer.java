package io.fabricd.gate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.model.finding.Severity;
import io.fabricd.preflight.FindingInput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An agent's answer to {@code POST /api/v1/preflight/state}: its node and host name, its findings
 * and its recent probe windows. Anything else is garbage (an IOException saying so).
 *
 * @param node    the name the agent goes by among its peers (probe.node_name, else its host's name):
 *                what its probe endpoint says, and so what its peers' probe windows name it
 * @param host    the host name of the agent's latest collection
 * @param intervalSeconds the agent's collection interval, when it says it (agents of this release do)
 * @param windows the agent's probe windows, each to a peer named as that peer's endpoint names it
 */
record StateAnswer(String node, String host, String collectedAt, Double intervalSeconds, List<FindingInput> findings, List<Window> windows) {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** More probes than one window or round of an agent holds by far (10 a second for three years). */
    static final long MAX_COUNT = 1_000_000_000L;

    /**
     * One probe window: to {@code peer} (its name, as the peer's endpoint gave it) at
     * {@code peerAddress} (HOST:PORT as the agent probes it, or null) over {@code transport} at
     * {@code size} bytes; the holds are the median and the 90th percentile of how long the peer's
     * responder held them (null: not said, as by an older agent).
     */
    record Window(String peer, String peerAddress, String transport, int size, long sent, long lost, Double p50Seconds,
                  Double holdP50Seconds, Double holdP90Seconds) {
    }

    static StateAnswer parse(byte[] body) throws IOException {
        JsonNode j;
        try {
            j = JSON.readTree(body);
        } catch (IOException e) {
            throw new IOException("answered something that is not JSON: not a fabricd agent of this release?");
        }
        if (j == null || !j.isObject() || !j.path("findings").isArray() || !j.path("probes").isArray()) {
            throw new IOException("answered JSON without findings and probes: not a fabricd agent of this release?");
        }
        List<FindingInput> findings = new ArrayList<>();
        for (JsonNode f : j.get("findings")) {
            Severity sev = severity(text(f, "severity"));
            String check = text(f, "check");
            if (sev == null || check == null) {
                throw new IOException("answered a finding without a check or a known severity: not a fabricd agent of this release?");
            }
            findings.add(new FindingInput(check, sev, text(f, "summary"), text(f, "remediation"), subject(f)));
        }
        List<Window> windows = new ArrayList<>();
        for (JsonNode p : j.get("probes")) {
            String peer = text(p, "peer");
            if (peer == null) {
                continue;
            }
            long sent = count(p, "sent");
            long lost = count(p, "lost");
            if (sent < 0 || lost < 0) {
                continue; // not counts an agent makes: no evidence, rather than sums that overflow
            }
            windows.add(new Window(peer, text(p, "peer_address"), p.path("transport").asText("udp"), p.path("size").asInt(0), sent,
                    lost, seconds(p, "p50_seconds"), seconds(p, "hold_p50_seconds"), seconds(p, "hold_p90_seconds")));
        }
        JsonNode interval = j.path("collection_interval_seconds");
        return new StateAnswer(text(j, "node"), text(j, "host"), text(j, "collected_at"),
                interval.isNumber() && interval.asDouble() > 0 ? interval.asDouble() : null, findings, windows);
    }

    private static Severity severity(String id) {
        for (Severity s : Severity.values()) {
            if (s.id().equals(id)) {
                return s;
            }
        }
        return null;
    }

    /**
     * A count of probes an agent gave (in a state's window or a round's result): 0 when absent, -1
     * when it is none an agent makes (negative, fractional, above {@link #MAX_COUNT}), which its
     * reader drops, so that no answer can make the gate's sums overflow or outweigh every other.
     */
    static long count(JsonNode n, String field) {
        JsonNode v = n.path(field);
        if (v.isMissingNode() || v.isNull()) {
            return 0;
        }
        return v.canConvertToExactIntegral() && v.canConvertToLong() && v.asLong() >= 0 && v.asLong() <= MAX_COUNT ? v.asLong() : -1;
    }

    /** A number of seconds an agent gave (in a state's window or a round's result), or null. */
    static Double seconds(JsonNode n, String field) {
        JsonNode v = n.path(field);
        return v.isNumber() ? v.asDouble() : null;
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }

    /** The finding's subject as strings ({"device":"mlx5_0","port":"1"}). */
    private static Map<String, String> subject(JsonNode f) {
        Map<String, String> m = new LinkedHashMap<>();
        JsonNode s = f.path("subject");
        for (Iterator<Map.Entry<String, JsonNode>> it = s.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            m.put(e.getKey(), e.getValue().isValueNode() ? e.getValue().asText() : e.getValue().toString());
        }
        return m;
    }
}
