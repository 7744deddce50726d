package io.fabricd.gate;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabricd.gate.wire.PreflightWire;
import io.fabricd.model.topology.Placement;
import io.fabricd.preflight.NodeInput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every node's state (findings and probe windows), asked of all agents at once; a node whose agent
 * could not be asked, refused, could not answer or answered garbage is a NodeInput of that kind with
 * the reason, and so is one whose latest collection is stale ({@link #staleAfter}).
 */
final class NodeStates {
    /** The most a request body may be: the agents read no more (64 KiB). */
    static final int MAX_BODY = 64 * 1024;
    /** A collection older than this is stale, when the agent does not say its interval. */
    static final Duration STALE_AFTER = Duration.ofMinutes(5);
    /** A collection older than this many of the agent's intervals is stale. */
    static final int STALE_INTERVALS = 3;
    /** Past its least time, the state phase goes on while an answer came within this. */
    static final Duration STILL_ANSWERING = Duration.ofSeconds(2);

    private final List<NodeSet.Node> nodes;
    private final AgentAsk ask;
    private final FleetCalls calls;
    private final Map<String, FleetCalls.Outcome<StateAnswer>> answers = new LinkedHashMap<>();
    /** When each answer came, by this host's clock: its collection's age is judged then, not after the later phases. */
    private final Map<String, Instant> answeredAt = new ConcurrentHashMap<>();
    private final Clock clock;
    private final List<String> warnings = new ArrayList<>();
    /**
     * The name an agent goes by among its peers (its answer's {@code node}: probe.node_name, else its
     * host's name; the agents' probe windows name their peers so) to node name, for the names only
     * one node answered as.
     */
    private final Map<String, String> byHost = new HashMap<>();
    private final Map<String, String> byAddress = new HashMap<>();

    /** @param clock what a collection's age is judged by */
    NodeStates(List<NodeSet.Node> nodes, AgentAsk ask, FleetCalls calls, Clock clock) {
        this.nodes = nodes;
        this.ask = ask;
        this.calls = calls;
        this.clock = clock;
        for (NodeSet.Node n : nodes) {
            byAddress.put(n.address(), n.name());
        }
    }

    /**
     * The set's agents to name in the state request (whose windows an agent keeps first when its
     * answer must be cut): the set in its order, as many as the agents take
     * ({@link GateRun#MAX_STATE_PEERS}) and fit a body of {@link #MAX_BODY}.
     */
    static List<String> peers(List<NodeSet.Node> nodes) {
        List<String> out = new ArrayList<>();
        long size = utf8(PreflightWire.REQUESTS.valueToTree(new PreflightWire.StateRequest(PreflightWire.VERSION, List.of())));
        for (NodeSet.Node n : nodes) {
            if (out.size() >= GateRun.MAX_STATE_PEERS) {
                break;
            }
            long more = utf8(PreflightWire.REQUESTS.valueToTree(n.address())) + (out.isEmpty() ? 0 : 1);
            if (size + more > MAX_BODY) {
                break;
            }
            size += more;
            out.add(n.address());
        }
        return out;
    }

    private static int utf8(JsonNode json) {
        return json.toString().getBytes(StandardCharsets.UTF_8).length;
    }

    /**
     * Asks every agent at once and waits {@code least} for the answers, then on while they still come
     * (one in the last {@link #STILL_ANSWERING}) up to {@code most}: agents just started on a busy
     * host answer in seconds, and get them; a node that is down costs {@code least}.
     */
    void gather(Duration least, Duration most) {
        Duration within = most.compareTo(least) > 0 ? most : least;
        PreflightWire.StateRequest body = new PreflightWire.StateRequest(PreflightWire.VERSION, peers(nodes));
        long deadline = System.nanoTime() + within.toNanos();
        Map<String, FleetCalls.Call<StateAnswer>> todo = new LinkedHashMap<>();
        for (NodeSet.Node n : nodes) {
            todo.put(n.name(), () -> {
                byte[] answer = ask.postUntilFree(n, PreflightWire.STATE, body, deadline);
                answeredAt.put(n.name(), clock.instant());
                try {
                    return StateAnswer.parse(answer);
                } catch (IOException x) {
                    throw new IOException(n.address() + " " + x.getMessage());
                }
            });
        }
        if (within.isZero()) {
            for (NodeSet.Node n : nodes) {
                answers.put(n.name(), new FleetCalls.Outcome<>(null, "not asked: no time left (--timeout)"));
            }
        } else {
            answers.putAll(calls.run(todo, least, within, STILL_ANSWERING));
        }
        Map<String, List<String>> hosts = new LinkedHashMap<>();
        for (Map.Entry<String, FleetCalls.Outcome<StateAnswer>> e : answers.entrySet()) {
            // the name the agent goes by among its peers (probe.node_name, else its host's name): the one
            // its peers' windows carry, as its endpoint gives it; two agents of one host may go by two
            String name = peerName(e.getValue().value());
            if (name != null) {
                hosts.computeIfAbsent(name, h -> new ArrayList<>()).add(e.getKey());
            }
        }
        for (Map.Entry<String, List<String>> h : hosts.entrySet()) {
            if (h.getValue().size() == 1) {
                byHost.put(h.getKey(), h.getValue().get(0));
            } else {
                warnings.add("nodes " + Texts.names(h.getValue()) + " all answered as " + Texts.line(h.getKey())
                        + ": one agent under several names? their windows are matched by address only");
            }
        }
    }

    private static String peerName(StateAnswer a) {
        return a == null ? null : a.node() != null ? a.node() : a.host();
    }

    /** The nodes whose agents answered, in set order (a stale collection's too: its agent and its probes work). */
    List<String> reachable() {
        List<String> out = new ArrayList<>();
        answers.forEach((n, o) -> {
            if (o.ok()) {
                out.add(n);
            }
        });
        return out;
    }

    /** Where the agents that answered say their nodes sit, by the set's names, in set order. */
    List<Placement> placements() {
        List<Placement> out = new ArrayList<>();
        answers.forEach((n, o) -> {
            if (o.ok()) {
                o.value().placementOf(n).ifPresent(out::add);
            }
        });
        return out;
    }

    /** The gate's node inputs, in set order; a collection is judged stale as of when its agent answered. */
    List<NodeInput> inputs() {
        List<NodeInput> out = new ArrayList<>();
        for (NodeSet.Node n : nodes) {
            FleetCalls.Outcome<StateAnswer> o = answers.get(n.name());
            if (!o.ok()) {
                out.add(new NodeInput(n.name(), AgentAsk.state(o.cause(), o.error()), o.error(), List.of()));
                continue;
            }
            String stale = stale(o.value(), answeredAt.getOrDefault(n.name(), clock.instant()));
            out.add(stale == null ? new NodeInput(n.name(), NodeInput.State.REACHABLE, null, o.value().findings())
                    : new NodeInput(n.name(), NodeInput.State.STALE, stale, List.of()));
        }
        return out;
    }

    /**
     * Why the answer's collection is too old to judge the node by, or null: older than
     * {@link #STALE_INTERVALS} of the agent's collection intervals, or {@link #STALE_AFTER} when it
     * does not say its interval, by this host's clock. An answer without a time is garbage.
     */
    static String stale(StateAnswer a, Instant now) {
        Instant at;
        try {
            at = Instant.parse(String.valueOf(a.collectedAt()));
        } catch (DateTimeParseException e) {
            return "its answer's collected_at '" + Texts.line(String.valueOf(a.collectedAt())) + "' is not a time";
        }
        Duration bound = a.intervalSeconds() == null ? STALE_AFTER
                : Duration.ofMillis((long) (a.intervalSeconds() * 1000 * STALE_INTERVALS));
        Duration age = Duration.between(at, now);
        if (age.compareTo(bound) <= 0) {
            return null;
        }
        return "collected at " + at + ", " + Texts.age(age) + " ago, more than " + (a.intervalSeconds() == null ? Texts.age(bound)
                : STALE_INTERVALS + " x its collection interval of " + Texts.age(Duration.ofMillis((long) (a.intervalSeconds() * 1000))));
    }

    /**
     * Each agent's probe windows to other nodes of the set, as link evidence; stops at {@code deadline}
     * (System.nanoTime). A window whose peer is one node by its agent's name and another by the
     * address it was probed at is neither's: the agent fetched the named node's endpoint at the other's
     * address (a relay there) and probed that address; it is said as a warning.
     */
    boolean windowsInto(LinkEvidence links, long deadline) {
        int notCounted = 0;
        Set<String> elsewhere = new LinkedHashSet<>();
        for (Map.Entry<String, FleetCalls.Outcome<StateAnswer>> e : answers.entrySet()) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            StateAnswer a = e.getValue().value();
            if (a == null) {
                continue;
            }
            for (PreflightWire.Window w : a.windows()) {
                String peer = byHost.get(w.peer());
                String at = w.peerAddress() == null ? null : byAddress.get(w.peerAddress());
                if (peer != null && at != null && !peer.equals(at)) {
                    // measured at another node's address: a relay there, or a list that points at the wrong one
                    elsewhere.add(e.getKey() + "'s to " + peer + " at " + at + "'s address " + Texts.line(w.peerAddress()));
                    notCounted++;
                    continue;
                }
                if (peer == null) {
                    peer = byAddress.get(w.peerAddress() != null ? w.peerAddress() : w.peer());
                }
                if (peer != null && !peer.equals(e.getKey())) {
                    links.window(e.getKey(), peer, w);
                }
            }
        }
        if (notCounted > 0) {
            warnings.add(Texts.count(notCounted, "probe window") + " not counted (" + elsewhere.iterator().next()
                    + (elsewhere.size() > 1 ? " and " + (elsewhere.size() - 1) + " more" : "") + "): a window of one node's agent"
                    + " measured at another node's address is neither's evidence (a relay at that address, or a node list that points"
                    + " at the wrong one)");
        }
        return true;
    }

    /**
     * The state phase: how many agents answered, the first of those that did not (and why), the
     * warnings, and whether every answer's probe windows were read in time.
     */
    GatePhase phase(boolean windowsRead) {
        GatePhase.Problems problems = new GatePhase.Problems();
        answers.forEach((n, o) -> {
            if (!o.ok()) {
                problems.add(n + ": " + o.error());
            }
        });
        warnings.forEach(problems::add);
        if (!windowsRead) {
            problems.add("probe windows: not all read: no time left (--timeout)");
        }
        long ok = answers.values().stream().filter(FleetCalls.Outcome::ok).count();
        StringBuilder summary = new StringBuilder("state: " + ok + " of " + nodes.size() + " agents answered");
        if (ok < nodes.size()) {
            summary.append(", ").append(nodes.size() - ok).append(" unknown").append(problems.first());
        }
        warnings.forEach(w -> summary.append("; ").append(w));
        if (!windowsRead) {
            summary.append("; probe windows: not all read: no time left (--timeout)");
        }
        return new GatePhase(GatePhase.Kind.STATE, ok == nodes.size() && windowsRead ? GatePhase.Status.COMPLETE : GatePhase.Status.PARTIAL,
                nodes.size(), (int) ok, 1, problems.list(), summary.toString(), 0);
    }
}
