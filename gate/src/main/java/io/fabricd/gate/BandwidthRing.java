package io.fabricd.gate;

import io.fabricd.gate.wire.PreflightWire;
import io.fabricd.preflight.Pair;
import io.fabricd.preflight.RingPlan;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The bandwidth ring: one RDMA WRITE test per adjacent pair of a ring over the reachable nodes, in
 * two waves (every node writes to its next neighbour, then to its previous one), so that each agent
 * runs one test at a time and every link is measured both ways. An agent busy with another test is
 * asked again after its Retry-After within the wave's time.
 */
final class BandwidthRing {
    /** The agent's status for a test the peer accepted that then failed (docs/preflight.md). */
    static final int FAILED_AFTER_ACCEPTED = 502;

    private final Map<String, String> address = new HashMap<>();
    private final AgentAsk ask;
    private final FleetCalls calls;
    private final Duration duration;
    private final int size;

    BandwidthRing(List<NodeSet.Node> nodes, AgentAsk ask, FleetCalls calls, Duration duration, int size) {
        for (NodeSet.Node n : nodes) {
            address.put(n.name(), n.address());
        }
        this.ask = ask;
        this.calls = calls;
        this.duration = duration;
        this.size = size;
    }

    /**
     * Both waves within {@code within}; what the phase did. A test the peer accepted that then failed
     * (the agent's 502) is held against the link; one refused, busy past the budget, without verbs
     * or not asked in time is not measured.
     */
    GatePhase run(List<String> up, LinkEvidence links, Duration within) {
        List<Pair> pairs = RingPlan.ring(up);
        long end = System.nanoTime() + within.toNanos();
        int measured = 0;
        int failed = 0;
        int not = 0;
        GatePhase.Problems problems = new GatePhase.Problems();
        for (int wave = 0; wave < 2; wave++) {
            Duration left = Duration.ofNanos(Math.max(0, end - System.nanoTime()));
            Duration d = wave == 0 ? left.dividedBy(2) : left;
            long deadline = System.nanoTime() + d.toNanos();
            Map<List<String>, FleetCalls.Call<byte[]>> todo = new LinkedHashMap<>();
            for (Pair p : pairs) {
                String from = wave == 0 ? p.a() : p.b();
                String to = wave == 0 ? p.b() : p.a();
                PreflightWire.BandwidthRequest body = new PreflightWire.BandwidthRequest(PreflightWire.VERSION, address.get(to),
                        duration.toMillis(), (long) size);
                NodeSet.Node node = new NodeSet.Node(from, address.get(from));
                todo.put(List.of(from, to), () -> ask.postUntilFree(node, PreflightWire.BANDWIDTH, body, deadline));
            }
            Map<List<String>, FleetCalls.Outcome<byte[]>> done = d.compareTo(duration) > 0 && System.nanoTime() - deadline < 0
                    ? calls.run(todo, Duration.ofNanos(Math.max(1, deadline - System.nanoTime()))) : Map.of();
            for (List<String> ft : todo.keySet()) {
                FleetCalls.Outcome<byte[]> o = done.get(ft);
                String why;
                if (o == null) {
                    why = "not measured: no time left for it (--timeout)";
                    links.bandwidth(ft.get(0), ft.get(1), null, why);
                } else if (o.ok()) {
                    why = read(ft, o.value(), links);
                } else if (o.cause() instanceof AgentAsk.Failed f && f.status() == FAILED_AFTER_ACCEPTED) {
                    why = o.error();
                    failed++;
                    links.bandwidthFailed(ft.get(0), ft.get(1), why);
                } else {
                    why = "not measured: " + o.error();
                    links.bandwidth(ft.get(0), ft.get(1), null, why);
                }
                if (why == null) {
                    measured++;
                } else {
                    not++;
                    problems.add(ft.get(0) + "->" + ft.get(1) + " " + why);
                }
            }
        }
        return GatePhase.ran(GatePhase.Kind.BANDWIDTH, 2 * pairs.size(), measured, 2, problems.list(), "bandwidth ring: " + pairs.size()
                + " links both ways, " + measured + " tests measured" + (failed > 0 ? ", " + failed + " failed once the peer accepted them" : "")
                + (not > failed ? ", " + (not - failed) + " not measured" : "") + problems.first());
    }

    /** One test's answer as link evidence; null when it gave a ratio, else why not. */
    private static String read(List<String> ft, byte[] answer, LinkEvidence links) {
        PreflightWire.BandwidthAnswer j;
        try {
            j = PreflightWire.ANSWERS.readValue(answer, PreflightWire.BandwidthAnswer.class);
        } catch (IOException e) {
            j = null;
        }
        if (j == null || j.bitsPerSecond() == null) {
            String why = "not measured: the agent answered a bandwidth test that is not one";
            links.bandwidth(ft.get(0), ft.get(1), null, why);
            return why;
        }
        double bps = j.bitsPerSecond();
        if (j.ratio() != null) {
            links.bandwidth(ft.get(0), ft.get(1), j.ratio(), bps, j.ceilingBitsPerSecond(), null);
            return null;
        }
        String why = String.format(Locale.ROOT, "%.2f Gb/s, no ceiling known for this path (limit %s): not judged", bps / 1e9,
                j.limit() == null ? "unknown" : j.limit());
        links.bandwidth(ft.get(0), ft.get(1), null, bps, null, why);
        return why;
    }
}
