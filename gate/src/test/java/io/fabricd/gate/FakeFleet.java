package io.fabricd.gate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.gate.wire.PreflightWire;
import io.fabricd.model.topology.Topology;
import io.fabricd.preflight.Policy;
import io.fabricd.probes.ProbeKey;
import io.fabricd.probes.peers.EndpointClient;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A fleet of agents that answers the preflight paths from memory, no network: every node's state
 * (collected now, no findings, probe windows to the {@code windows} nodes after it), its probe
 * rounds (every probe answered at 20 µs, half lost to and from the {@code quiet} nodes) and its
 * bandwidth tests (90 % of the ceiling). A test may answer some requests otherwise ({@link #override}).
 */
final class FakeFleet implements AgentAsk.Transport {
    private static final ObjectMapper JSON = new ObjectMapper();

    final List<NodeSet.Node> nodes = new ArrayList<>();
    /** Nodes that no pingmesh probes and that lose half the probes of a round: the suspects of a ring. */
    final Set<String> quiet = new HashSet<>();
    /** What each path was asked, and the largest body sent to it. */
    final Map<String, AtomicInteger> asked = new ConcurrentHashMap<>();
    final Map<String, Integer> largestBody = new ConcurrentHashMap<>();
    /**
     * Answers of a test's own, by node name and path, given the request's body: a body, or an
     * exception to throw; null to answer as usual.
     */
    final Map<String, Function<String, Object>> override = new ConcurrentHashMap<>();
    private final Map<String, String> byAddress = new HashMap<>();
    private final int windows;
    private volatile Instant collectedAt = Instant.now();
    /** The host every agent says it collected (agents of one host under their own node names); null: each its node's. */
    volatile String oneHost;
    /** The name each node's agent goes by (and signs its answers with), from the node's; its own by default. */
    volatile Function<String, String> agentName = n -> n;
    /** Where each node's agent says it sits (the state answer's placement), by the node's name; null: not said. */
    volatile Function<String, PreflightWire.Placement> placement = n -> null;

    /** {@code n} nodes named {@code prefix0001...}, each agent at NAME:9530. */
    FakeFleet(String prefix, int n, int windows) {
        this.windows = windows;
        for (int i = 1; i <= n; i++) {
            String name = prefix + String.format("%04d", i);
            nodes.add(new NodeSet.Node(name, name + ":9530"));
            byAddress.put(name + ":9530", name);
        }
    }

    FakeFleet collectedAt(Instant at) {
        collectedAt = at;
        return this;
    }

    @Override
    public EndpointClient.Answered post(String address, String path, byte[] body) throws IOException {
        asked.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
        largestBody.merge(path, body.length, Math::max);
        String node = byAddress.get(address);
        if (node == null) {
            throw new IOException("cannot reach " + address + ": cannot resolve host " + address);
        }
        Function<String, Object> own = override.get(node + path);
        Object answer = own == null ? null : own.apply(new String(body, StandardCharsets.UTF_8));
        if (answer instanceof IOException e) {
            throw e;
        }
        if (answer instanceof String s) {
            return new EndpointClient.Answered(agentName.apply(node), s.getBytes(StandardCharsets.UTF_8));
        }
        JsonNode req = JSON.readTree(body);
        Map<String, Object> doc = switch (path) {
            case PreflightWire.STATE -> state(node);
            case PreflightWire.PROBE -> probe(node, req);
            case PreflightWire.BANDWIDTH -> Map.of("node", node, "peer", req.path("peer").asText(), "bits_per_second", 9e10,
                    "ceiling_bits_per_second", 1e11, "ratio", 0.9, "limit", "link");
            default -> throw new EndpointClient.Refused(address + " answered 404: not found", 404, "not found", 0);
        };
        return new EndpointClient.Answered(agentName.apply(node), JSON.writeValueAsBytes(doc));
    }

    private Map<String, Object> state(String node) {
        int i = index(node);
        List<Map<String, Object>> probes = new ArrayList<>();
        if (!quiet.contains(node)) {
            for (int k = 1; k <= windows && k < nodes.size(); k++) {
                String peer = nodes.get((i + k) % nodes.size()).name();
                if (!quiet.contains(peer)) {
                    Map<String, Object> w = new LinkedHashMap<>();
                    w.put("peer", agentName.apply(peer)); // as the peer's endpoint names it
                    // agents of one host probe each other at addresses the set does not name them by
                    w.put("peer_address", oneHost == null ? peer + ":9530" : "10.0.0." + (index(peer) + 1) + ":9530");
                    w.put("transport", "udp");
                    w.put("size", 64);
                    w.put("sent", 100);
                    w.put("lost", 0);
                    w.put("late", 0);
                    w.put("p50_seconds", 2e-5);
                    w.put("p99_seconds", 4e-5);
                    probes.add(w);
                }
            }
        }
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("node", agentName.apply(node));
        doc.put("host", oneHost == null ? node : oneHost);
        doc.put("collected_at", collectedAt.toString());
        doc.put("collection_interval_seconds", 10.0);
        doc.put("findings", List.of());
        doc.put("probes", probes);
        if (placement.apply(node) != null) {
            doc.put("placement", placement.apply(node));
        }
        return doc;
    }

    private Map<String, Object> probe(String node, JsonNode req) {
        int count = req.path("count").asInt();
        List<Map<String, Object>> results = new ArrayList<>();
        for (JsonNode p : req.path("peers")) {
            String peer = byAddress.get(p.asText());
            boolean lossy = quiet.contains(node) || quiet.contains(peer);
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("peer", p.asText());
            r.put("peer_host", peer);
            r.put("sent", count);
            r.put("lost", lossy ? count / 2 : 0);
            r.put("late", 0);
            r.put("p50_seconds", 2e-5);
            r.put("p99_seconds", 4e-5);
            r.put("error", null);
            results.add(r);
        }
        return Map.of("node", node, "results", results);
    }

    private int index(String node) {
        return Integer.parseInt(node.substring(node.length() - 4)) - 1;
    }

    /** The settings of a run: probe and bandwidth rounds on, the default policy, {@code timeout}. */
    static GateRun.Settings settings(Duration timeout) {
        return new GateRun.Settings(new ProbeKey("a-test-key-of-more-than-16-bytes".getBytes(StandardCharsets.UTF_8)), false, true, true,
                Duration.ofMillis(200), 65_536, Policy.defaults(), timeout);
    }

    /** A run over the fleet; its progress lines in {@code progress}. */
    GateRun.Result run(Duration timeout, StringWriter progress) {
        return run(Topology.EMPTY, timeout, progress);
    }

    /** A run over the fleet with a topology handed to the gate. */
    GateRun.Result run(Topology topology, Duration timeout, StringWriter progress) {
        return new GateRun(nodes, settings(timeout), topology, new PrintWriter(progress), this, Clock.systemUTC()).run();
    }
}
