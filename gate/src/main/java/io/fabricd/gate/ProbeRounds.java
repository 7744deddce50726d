package io.fabricd.gate;

import io.fabricd.gate.wire.PreflightWire;
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
 * the suspects are re-paired with known-good nodes (RingPlan.repair) and probed again. A phase asks
 * again, both ways, for every pair still short of its samples (a request that failed, a peer the
 * agent could not probe: a freshly started agent may take longer than the agents' 2 s to give its
 * endpoint) until each pair has them or the phase's time is spent; an agent that refused for good
 * (401, 404, 400, 413) or busy past the phase is not asked again.
 */
final class ProbeRounds {
    /** Most peers in one probe request (the agents' limit). */
    static final int MAX_PEERS = 64;
    /** The size of the on-demand probes. */
    static final int SIZE = 64;
    /** The least time worth an attempt: a round to two peers takes about a second (their endpoints, the probes, the last answers). */
    static final Duration ATTEMPT = Duration.ofSeconds(2);
    /** The least time from one attempt's start to the next: an agent that fails at once is not asked in a tight loop. */
    static final Duration RETRY_GAP = Duration.ofSeconds(1);
    private static final Set<Integer> REFUSED_FOR_GOOD = Set.of(400, 401, 404, 413);

    /** From a to b, as one requester probes one peer. */
    private record Direction(String from, String to) {
    }

    private final Map<String, String> address = new HashMap<>();
    private final Map<String, String> byAddress = new HashMap<>();
    private final AgentAsk ask;
    private final FleetCalls calls;
    private final int count;
    private final int minSamples;

    ProbeRounds(List<NodeSet.Node> nodes, AgentAsk ask, FleetCalls calls, int minSamples) {
        for (NodeSet.Node n : nodes) {
            address.put(n.name(), n.address());
            byAddress.put(n.address(), n.name());
        }
        this.ask = ask;
        this.calls = calls;
        this.count = Math.min(1000, Math.max(50, minSamples));
        this.minSamples = minSamples;
    }

    /** Every node of {@code up} probes its ring neighbours, within {@code within}. */
    GatePhase ring(List<String> up, LinkEvidence links, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        List<Pair> pairs = RingPlan.ring(up);
        if (System.nanoTime() - deadline > 0) {
            return GatePhase.skipped(GatePhase.Kind.PROBE_ROUND, pairs.size(), "probe round: not run: planning it took the phase's time"
                    + " (--timeout)");
        }
        return probe(GatePhase.Kind.PROBE_ROUND, "probe round: ", pairs, links, deadline);
    }

    /**
     * The suspects of {@code first} probed from and to known-good nodes they were not paired with
     * (the pairs measured or tried so far, as {@code links} keeps them), within {@code within}.
     */
    GatePhase repair(Verdicts first, List<String> up, LinkEvidence links, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        List<String> suspects = first.suspectNodes();
        Set<String> reachable = new HashSet<>(up);
        List<String> good = first.knownGood().stream().filter(reachable::contains).toList();
        List<Pair> pairs = RingPlan.repair(suspects, good, links.testedPairs());
        if (System.nanoTime() - deadline > 0) {
            return GatePhase.skipped(GatePhase.Kind.REPAIR_ROUND, pairs.size(), "repair round: not run: planning it took the phase's time"
                    + " (--timeout)");
        }
        if (pairs.isEmpty()) {
            return GatePhase.skipped(GatePhase.Kind.REPAIR_ROUND, 0, "repair round: " + Texts.count(suspects.size(), "suspect")
                    + ", no known-good node left to pair them with");
        }
        return probe(GatePhase.Kind.REPAIR_ROUND, "repair round: " + Texts.count(suspects.size(), "suspect") + " re-paired with known-good nodes, ",
                pairs, links, deadline);
    }

    /**
     * Probes every pair both ways, all requesters at once, and asks again for the pairs still short
     * of {@link #minSamples} until none is or {@code deadline} (System.nanoTime) is near; a pair left
     * short is kept as tried, with why its probes gave nothing.
     */
    private GatePhase probe(GatePhase.Kind kind, String head, List<Pair> planned, LinkEvidence links, long deadline) {
        Map<Pair, Long> samples = new LinkedHashMap<>();
        for (Pair p : planned) {
            samples.putIfAbsent(p.unordered(), 0L);
        }
        Map<Direction, String> why = new HashMap<>();
        Set<String> notAgain = new HashSet<>();
        GatePhase.Problems problems = new GatePhase.Problems();
        int attempts = 0;
        while (true) {
            Map<String, List<String>> asks = asks(samples, notAgain);
            long left = deadline - System.nanoTime();
            if (asks.isEmpty() || left < ATTEMPT.toNanos() && attempts > 0 || left <= 0) {
                break;
            }
            long started = System.nanoTime();
            attempts++;
            attempt(asks, samples, why, notAgain, problems, links, deadline);
            if (asks(samples, notAgain).isEmpty()) {
                break;
            }
            long pause = started + RETRY_GAP.toNanos() - System.nanoTime();
            if (pause > 0 && deadline - System.nanoTime() > pause + ATTEMPT.toNanos()) {
                try {
                    Thread.sleep(pause / 1_000_000, (int) (pause % 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        int done = 0;
        for (Map.Entry<Pair, Long> e : samples.entrySet()) {
            if (e.getValue() >= minSamples) {
                done++;
                continue;
            }
            // meant to be measured, and not: its ends are judged on their links, this one saying why
            Pair p = e.getKey();
            String ab = why.get(new Direction(p.a(), p.b()));
            String ba = why.get(new Direction(p.b(), p.a()));
            String none = e.getValue() > 0 ? "only " + e.getValue() + " probes in the phase's time (--timeout)"
                    : attempts == 0 ? "not asked: no time left (--timeout)" : "not asked again: no time left (--timeout)";
            links.tried(p.a(), p.b(), ab != null ? p.a() + "->" + p.b() + ": " + ab : ba != null ? p.b() + "->" + p.a() + ": " + ba : none);
        }
        int pairs = samples.size();
        String summary = head + done + " of " + pairs + " pairs measured (" + count + " x " + SIZE + " B each way), " + attempts
                + (attempts == 1 ? " attempt" : " attempts") + (problems.count() > 0 ? "; " + problems.count()
                + (problems.count() == 1 ? " try" : " tries") + " gave no probes" + problems.first() : "")
                + (done < pairs ? "; " + (pairs - done) + " pairs without their " + minSamples + " probes" + (notAgain.isEmpty() ? ""
                : ", " + Texts.count(notAgain.size(), "agent") + " not asked again") : "");
        return GatePhase.ran(kind, pairs, done, attempts, problems.list(), summary);
    }

    /** Who to ask now: both ends of every pair still short, each requester its first {@link #MAX_PEERS} peers. */
    private Map<String, List<String>> asks(Map<Pair, Long> samples, Set<String> notAgain) {
        Map<String, Set<String>> peers = new LinkedHashMap<>();
        for (Map.Entry<Pair, Long> e : samples.entrySet()) {
            if (e.getValue() >= minSamples) {
                continue;
            }
            Pair p = e.getKey();
            if (!notAgain.contains(p.a())) {
                peers.computeIfAbsent(p.a(), k -> new LinkedHashSet<>()).add(p.b());
            }
            if (!notAgain.contains(p.b())) {
                peers.computeIfAbsent(p.b(), k -> new LinkedHashSet<>()).add(p.a());
            }
        }
        Map<String, List<String>> out = new LinkedHashMap<>();
        peers.forEach((from, to) -> out.put(from, to.stream().limit(MAX_PEERS).toList()));
        return out;
    }

    /** One attempt: every requester asked at once, by {@code deadline}; what each direction gave goes into {@code samples} and {@code links}. */
    private void attempt(Map<String, List<String>> asks, Map<Pair, Long> samples, Map<Direction, String> why, Set<String> notAgain,
                         GatePhase.Problems problems, LinkEvidence links, long deadline) {
        Map<String, FleetCalls.Call<byte[]>> todo = new LinkedHashMap<>();
        asks.forEach((from, to) -> {
            PreflightWire.ProbeRequest body = new PreflightWire.ProbeRequest(PreflightWire.VERSION, to.stream().map(address::get).toList(),
                    count, SIZE);
            NodeSet.Node node = new NodeSet.Node(from, address.get(from));
            todo.put(from, () -> ask.postUntilFree(node, PreflightWire.PROBE, body, deadline));
        });
        Duration within = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
        Map<String, FleetCalls.Outcome<byte[]>> done = within.isZero() ? Map.of() : calls.run(todo, within);
        for (Map.Entry<String, List<String>> e : asks.entrySet()) {
            String from = e.getKey();
            FleetCalls.Outcome<byte[]> o = done.get(from);
            String error = o == null ? "not asked: no time left (--timeout)" : o.error();
            if (error == null) {
                error = read(from, e.getValue(), o.value(), samples, why, problems, links);
            } else if (o != null && o.cause() instanceof AgentAsk.Failed f
                    && (f.busy() || f.otherAgent() || REFUSED_FOR_GOOD.contains(f.status()))) {
                notAgain.add(from); // refused for good, another node's agent or busy past the phase: asking again changes nothing
            }
            if (error != null) {
                problems.add(from + ": " + error);
                for (String to : e.getValue()) {
                    why.put(new Direction(from, to), error);
                }
            }
        }
    }

    /** The round's answer as link evidence and samples; an error line when the answer cannot be read. */
    private String read(String from, List<String> asked, byte[] answer, Map<Pair, Long> samples, Map<Direction, String> why,
                        GatePhase.Problems problems, LinkEvidence links) {
        PreflightWire.ProbeAnswer j;
        try {
            j = PreflightWire.ANSWERS.readValue(answer, PreflightWire.ProbeAnswer.class);
        } catch (IOException e) {
            return "answered a probe round that is not JSON";
        }
        if (j == null || j.results() == null) {
            return "answered a probe round without results";
        }
        Set<String> answered = new HashSet<>();
        for (PreflightWire.PeerResult r : j.results()) {
            String peer = r == null || r.peer() == null ? null : byAddress.get(r.peer());
            if (peer == null || peer.equals(from) || !asked.contains(peer) || !answered.add(peer)) {
                continue; // not a peer it was asked to probe: no evidence of this round
            }
            Direction d = new Direction(from, peer);
            if (r.error() != null) {
                String error = Texts.line(r.error());
                why.put(d, error);
                problems.add(from + "->" + peer + ": " + error);
                continue;
            }
            long sent = r.sent();
            long lost = r.lost();
            if (sent < 0 || lost < 0) {
                why.put(d, "its answer's probe counts are not counts");
                problems.add(from + "->" + peer + ": its answer's probe counts are not counts");
                continue;
            }
            links.round(from, peer, sent, lost, r.p50Seconds(), r.holdP50Seconds(), r.holdP90Seconds());
            samples.merge(new Pair(from, peer).unordered(), sent, Long::sum);
        }
        for (String peer : asked) {
            if (!answered.contains(peer)) {
                why.put(new Direction(from, peer), "its answer had no result for " + peer);
                problems.add(from + "->" + peer + ": its answer had no result for that peer");
            }
        }
        return null;
    }
}
