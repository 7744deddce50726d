package io.fabricd.agent.preflight;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.preflight.Pair;
import io.fabricd.preflight.RingPlan;
import io.fabricd.preflight.Verdicts;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The on-demand probe rounds: every agent probes its ring neighbours, and after a first decision
 * the suspects are re-paired with known-good nodes (RingPlan.repair) and probed again.
 */
final class ProbeRounds {
    /** The longest a round may take: the agents bound theirs by 10 s. */
    static final Duration ROUND_CAP = Duration.ofSeconds(12);
    /** Most peers in one probe request (the agents' limit). */
    static final int MAX_PEERS = 64;
    /** The size of the on-demand probes. */
    static final int SIZE = 64;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Map<String, String> address = new HashMap<>();
    private final Map<String, String> byAddress = new HashMap<>();
    private final AgentAsk ask;
    private final FleetCalls calls;
    private final int count;

    ProbeRounds(List<NodeSet.Node> nodes, AgentAsk ask, FleetCalls calls, int minSamples) {
        for (NodeSet.Node n : nodes) {
            address.put(n.name(), n.address());
            byAddress.put(n.address(), n.name());
        }
        this.ask = ask;
        this.calls = calls;
        this.count = Math.min(1000, Math.max(50, minSamples));
    }

    /** Every node of {@code up} probes its ring neighbours; a summary line. */
    String ring(List<String> up, LinkEvidence links, Duration within) {
        Map<String, Set<String>> peers = new LinkedHashMap<>();
        for (Pair p : RingPlan.ring(up)) {
            peers.computeIfAbsent(p.a(), k -> new LinkedHashSet<>()).add(p.b());
            peers.computeIfAbsent(p.b(), k -> new LinkedHashSet<>()).add(p.a());
        }
        return "probe round: " + run(peers, links, within);
    }

    /** The suspects of {@code first} probed from and to known-good nodes they were not paired with; a summary line. */
    String repair(Verdicts first, List<String> up, LinkEvidence links, Duration within) {
        List<String> suspects = first.suspectNodes();
        List<String> good = first.knownGood().stream().filter(up::contains).toList();
        Set<Pair> tested = new LinkedHashSet<>();
        for (int i = 0; i < up.size(); i++) {
            for (int k = i + 1; k < up.size(); k++) {
                if (links.tested(up.get(i), up.get(k))) {
                    tested.add(new Pair(up.get(i), up.get(k)));
                }
            }
        }
        Map<String, Set<String>> peers = new LinkedHashMap<>();
        for (Pair p : RingPlan.repair(suspects, good, tested)) {
            peers.computeIfAbsent(p.a(), k -> new LinkedHashSet<>()).add(p.b());
            peers.computeIfAbsent(p.b(), k -> new LinkedHashSet<>()).add(p.a());
        }
        if (peers.isEmpty()) {
            return "repair round: " + suspects.size() + " suspects, no known-good node left to pair them with";
        }
        return "repair round: " + suspects.size() + " suspects re-paired with known-good nodes, " + run(peers, links, within);
    }

    /** Each requester probes its peers, all at once, within {@code within}; what came of it. */
    private String run(Map<String, Set<String>> peers, LinkEvidence links, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        Map<String, FleetCalls.Call<byte[]>> todo = new LinkedHashMap<>();
        int pairs = 0;
        for (Map.Entry<String, Set<String>> e : peers.entrySet()) {
            List<String> to = e.getValue().stream().limit(MAX_PEERS).map(address::get).toList();
            pairs += to.size();
            Map<String, Object> body = Map.of("peers", to, "count", count, "size", SIZE);
            todo.put(e.getKey(), () -> ask.postUntilFree(address.get(e.getKey()), AgentAsk.PROBE, body, deadline));
        }
        int failed = 0;
        String firstError = null;
        for (Map.Entry<String, FleetCalls.Outcome<byte[]>> e : calls.run(todo, within).entrySet()) {
            String error = e.getValue().error();
            if (error == null) {
                error = read(e.getKey(), e.getValue().value(), links);
            }
            if (error != null) {
                failed++;
                firstError = firstError == null ? e.getKey() + ": " + error : firstError;
            }
        }
        return peers.size() + " agents probed " + pairs + " peers (" + count + " x " + SIZE + " B)"
                + (failed > 0 ? "; " + failed + " could not (" + firstError + ")" : "");
    }

    /** The round's results as link evidence; an error line when the answer cannot be read. */
    private String read(String from, byte[] answer, LinkEvidence links) {
        JsonNode j;
        try {
            j = JSON.readTree(answer);
        } catch (IOException e) {
            return "answered a probe round that is not JSON";
        }
        if (j == null || !j.path("results").isArray()) {
            return "answered a probe round without results";
        }
        for (JsonNode r : j.get("results")) {
            String peer = byAddress.get(r.path("peer").asText(""));
            if (peer == null || peer.equals(from) || !r.path("error").isNull() && r.has("error")) {
                continue; // a peer it could not probe is no evidence about the link
            }
            JsonNode p50 = r.path("p50_seconds");
            links.round(from, peer, r.path("sent").asLong(0), r.path("lost").asLong(0), p50.isNumber() ? p50.asDouble() : null);
        }
        return null;
    }
}
