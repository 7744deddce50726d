package io.fabricd.agent.preflight;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.preflight.Pair;
import io.fabricd.preflight.RingPlan;
import io.fabricd.preflight.Verdicts;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
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
        long deadline = System.nanoTime() + within.toNanos();
        Map<String, Set<String>> peers = new LinkedHashMap<>();
        for (Pair p : RingPlan.ring(up)) {
            if (System.nanoTime() - deadline > 0) {
                return "probe round: not run: planning it took the phase's time (--timeout)";
            }
            peers.computeIfAbsent(p.a(), k -> new LinkedHashSet<>()).add(p.b());
            peers.computeIfAbsent(p.b(), k -> new LinkedHashSet<>()).add(p.a());
        }
        return "probe round: " + run(peers, links, deadline);
    }

    /**
     * The suspects of {@code first} probed from and to known-good nodes they were not paired with
     * (the pairs measured or tried so far, as {@code links} keeps them); a summary line.
     */
    String repair(Verdicts first, List<String> up, LinkEvidence links, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        List<String> suspects = first.suspectNodes();
        Set<String> reachable = new HashSet<>(up);
        List<String> good = first.knownGood().stream().filter(reachable::contains).toList();
        Map<String, Set<String>> peers = new LinkedHashMap<>();
        for (Pair p : RingPlan.repair(suspects, good, links.testedPairs())) {
            if (System.nanoTime() - deadline > 0) {
                return "repair round: not run: planning it took the phase's time (--timeout)";
            }
            peers.computeIfAbsent(p.a(), k -> new LinkedHashSet<>()).add(p.b());
            peers.computeIfAbsent(p.b(), k -> new LinkedHashSet<>()).add(p.a());
        }
        if (peers.isEmpty()) {
            return "repair round: " + suspects.size() + " suspects, no known-good node left to pair them with";
        }
        return "repair round: " + suspects.size() + " suspects re-paired with known-good nodes, " + run(peers, links, deadline);
    }

    /** Each requester probes its peers, all at once, by {@code deadline} (System.nanoTime); what came of it. */
    private String run(Map<String, Set<String>> peers, LinkEvidence links, long deadline) {
        Map<String, FleetCalls.Call<byte[]>> todo = new LinkedHashMap<>();
        Map<String, List<String>> asked = new LinkedHashMap<>();
        int pairs = 0;
        for (Map.Entry<String, Set<String>> e : peers.entrySet()) {
            List<String> to = e.getValue().stream().limit(MAX_PEERS).toList();
            asked.put(e.getKey(), to);
            pairs += to.size();
            Map<String, Object> body = Map.of("peers", to.stream().map(address::get).toList(), "count", count, "size", SIZE);
            todo.put(e.getKey(), () -> ask.postUntilFree(address.get(e.getKey()), AgentAsk.PROBE, body, deadline));
        }
        Duration within = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
        int failed = 0;
        String firstError = null;
        Map<String, FleetCalls.Outcome<byte[]>> done = within.isZero() ? Map.of() : calls.run(todo, within);
        for (String from : todo.keySet()) {
            FleetCalls.Outcome<byte[]> o = done.get(from);
            String error = o == null ? "not asked: no time left (--timeout)" : o.error();
            if (error == null) {
                error = read(from, asked.get(from), o.value(), links);
            }
            if (error != null) {
                failed++;
                firstError = firstError == null ? from + ": " + error : firstError;
                // what it was to probe is no evidence, but the pairs were meant to be measured
                asked.get(from).forEach(to -> links.tried(from, to));
            }
        }
        return peers.size() + " agents probed " + pairs + " peers (" + count + " x " + SIZE + " B)"
                + (failed > 0 ? "; " + failed + " could not (" + firstError + ")" : "");
    }

    /** The round's results as link evidence (a peer it could not probe, an attempt); an error line when the answer cannot be read. */
    private String read(String from, List<String> asked, byte[] answer, LinkEvidence links) {
        JsonNode j;
        try {
            j = JSON.readTree(answer);
        } catch (IOException e) {
            return "answered a probe round that is not JSON";
        }
        if (j == null || !j.path("results").isArray()) {
            return "answered a probe round without results";
        }
        Set<String> answered = new HashSet<>();
        for (JsonNode r : j.get("results")) {
            String peer = byAddress.get(r.path("peer").asText(""));
            if (peer == null || peer.equals(from) || !asked.contains(peer) || !answered.add(peer)) {
                continue; // not a peer it was asked to probe: no evidence of this round
            }
            if (r.has("error") && !r.path("error").isNull()) {
                links.tried(from, peer); // it could not probe this peer: no evidence about the link, but it was tried
                continue;
            }
            JsonNode p50 = r.path("p50_seconds");
            JsonNode hold = r.path("hold_p50_seconds");
            links.round(from, peer, r.path("sent").asLong(0), r.path("lost").asLong(0), p50.isNumber() ? p50.asDouble() : null,
                    hold.isNumber() ? hold.asDouble() : null);
        }
        for (String peer : asked) {
            if (!answered.contains(peer)) {
                links.tried(from, peer);
            }
        }
        return null;
    }
}
