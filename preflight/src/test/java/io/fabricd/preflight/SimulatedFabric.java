package io.fabricd.preflight;

import io.fabricd.model.finding.Severity;
import io.fabricd.model.finding.Subject;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * A seeded fabric of {@code n} nodes whose ground truth is known: nodes with critical findings (some
 * of them lossy too), unreachable agents, nodes whose NIC is slow (every pair they are in is slow in
 * latency, bandwidth or both), hosts slow to answer (their responders hold probes for milliseconds:
 * all of them, a starved CPU, or one in five, a host that stalls now and then), bad links on the ring,
 * and healthy noise (a little loss, latency jitter, bandwidth spread, holds of tens of microseconds
 * with a tail a few times that, now and then a short probe round). {@link #measure} gives what a
 * preflight round would measure on some pairs, from the same truth every time: the ring round
 * probes and tests the bandwidth, a repair round probes only (as {@code fabricd preflight} does).
 */
final class SimulatedFabric {
    static final int PROBES = 100;
    private static final double BASE_SECONDS = 18e-6;

    final List<String> names;
    final Set<String> critical = new HashSet<>();
    final Set<String> unreachable = new HashSet<>();
    final Set<String> slow = new HashSet<>();
    /** Hosts slow to answer: a starved CPU or stalls, their links clean. */
    final Set<String> slowHosts = new HashSet<>();
    /** Bad links, {@link Pair#unordered()}. */
    final Set<Pair> badLinks = new HashSet<>();

    private final Random random;
    private final Map<String, Double> base = new HashMap<>();
    private final Map<String, Double> lossyNic = new HashMap<>();
    private final Map<String, Double> slowLatency = new HashMap<>();
    private final Map<String, Double> slowBandwidth = new HashMap<>();
    private final Map<Pair, double[]> linkFault = new HashMap<>(); // loss, added seconds, bandwidth factor
    /**
     * How long each node's responder holds a probe, its median and 90th percentile; drawn apart so that
     * the rest of the truth is as without it.
     */
    private final Map<String, Hold> hold = new HashMap<>();
    private final Random holdNoise;

    /** A responder's holds: their median and 90th percentile, in seconds. */
    private record Hold(double p50, double p90) {
    }

    /** What the fabric between two nodes adds to each direction's probes: a share lost and seconds of round trip. */
    record PathFault(double loss, double seconds) {
        static final PathFault NONE = new PathFault(0, 0);
    }

    /** The fabric's faults on the path between two nodes ({@link SimulatedTree}); none by default. */
    interface Paths {
        PathFault between(String a, String b);
    }

    private Paths paths = (a, b) -> PathFault.NONE;

    SimulatedFabric(long seed, int n) {
        this(seed, n, 1);
    }

    /** {@code density} times the usual faults: 1 to 3 % critical, 0.5 to 1.5 % each of unreachable, slow, bad links. */
    SimulatedFabric(long seed, int n, int density) {
        random = new Random(seed);
        names = Hostlist.parse("gpu[" + pad(1, n) + "-" + pad(n, n) + "]");
        List<Integer> idx = new ArrayList<>(IntStream.range(0, n).boxed().toList());
        Collections.shuffle(idx, random);
        int at = 0;
        int nCritical = density * (n / 100 + random.nextInt(n / 50 + 1));
        int nUnreachable = density * (n / 200 + random.nextInt(n / 100 + 1));
        int nSlow = density * (n / 200 + random.nextInt(n / 100 + 1));
        for (int i = 0; i < nCritical; i++) {
            String c = names.get(idx.get(at++));
            critical.add(c);
            if (random.nextDouble() < 0.3) {
                lossyNic.put(c, 0.02 + random.nextDouble() * 0.1);
            }
        }
        for (int i = 0; i < nUnreachable; i++) {
            unreachable.add(names.get(idx.get(at++)));
        }
        for (int i = 0; i < nSlow; i++) {
            String s = names.get(idx.get(at++));
            slow.add(s);
            int kind = random.nextInt(3); // 0 latency, 1 bandwidth, 2 both
            if (kind != 1) {
                slowLatency.put(s, 150e-6 + random.nextDouble() * 250e-6);
            }
            if (kind != 0) {
                slowBandwidth.put(s, 0.35 + random.nextDouble() * 0.45);
            }
        }
        for (String name : names) {
            base.put(name, BASE_SECONDS + random.nextDouble() * 6e-6);
        }
        int nBadLinks = density * (n / 200 + random.nextInt(n / 100 + 1));
        while (badLinks.size() < nBadLinks) {
            int i = random.nextInt(n);
            Pair p = new Pair(names.get(i), names.get((i + 1) % n)).unordered();
            if (badLinks.add(p)) {
                int kind = random.nextInt(3); // 0 loss, 1 bandwidth, 2 latency
                linkFault.put(p, new double[] {kind == 0 ? 0.02 + random.nextDouble() * 0.25 : 0,
                    kind == 2 ? 200e-6 + random.nextDouble() * 600e-6 : 0, kind == 1 ? 0.3 + random.nextDouble() * 0.5 : 1});
            }
        }
        holdNoise = new Random(seed * 31 + 7);
        List<String> healthy = new ArrayList<>(names);
        healthy.removeAll(badNodes());
        Collections.shuffle(healthy, holdNoise);
        slowHosts.addAll(healthy.subList(0, density * (n / 200 + holdNoise.nextInt(n / 100 + 1))));
        for (String name : names) {
            double p50 = 15e-6 + holdNoise.nextDouble() * 45e-6;
            double p90 = p50 * (1.5 + holdNoise.nextDouble() * 1.5);
            if (slowHosts.contains(name)) {
                // starved throughout, or stalling now and then: the median a fast host's, the tail not
                p90 = 2e-3 + holdNoise.nextDouble() * 38e-3;
                p50 = holdNoise.nextBoolean() ? p90 * (0.5 + holdNoise.nextDouble() * 0.5) : p50;
            }
            hold.put(name, new Hold(p50, p90));
        }
    }

    /** With the fabric's faults on the paths between nodes (drawing nothing from the seeded randomness). */
    SimulatedFabric withPaths(Paths p) {
        this.paths = p;
        return this;
    }

    /** The nodes whose NIC is bad in truth: lossy (some of those with a critical finding) or slow. */
    Set<String> badNics() {
        Set<String> all = new HashSet<>(lossyNic.keySet());
        all.addAll(slow);
        return all;
    }

    /** Every node bad in truth: a critical finding, an unreachable agent, a slow NIC, a slow host. */
    Set<String> badNodes() {
        Set<String> all = new HashSet<>(critical);
        all.addAll(unreachable);
        all.addAll(slow);
        all.addAll(slowHosts);
        return all;
    }

    List<NodeInput> nodeInputs() {
        List<NodeInput> out = new ArrayList<>();
        for (String name : names) {
            if (unreachable.contains(name)) {
                out.add(NodeInput.unreachable(name, "connect timed out after 5 s"));
            } else if (critical.contains(name)) {
                out.add(NodeInput.reachable(name, List.of(new FindingInput("pfc_missing", Severity.CRITICAL,
                        "RoCE traffic class 3 has no PFC", "fix the switch/NIC PFC config", Subject.port("mlx5_0", 1)))));
            } else if (random.nextDouble() < 0.05) {
                out.add(NodeInput.reachable(name, List.of(new FindingInput("ecn_disabled", Severity.WARNING,
                        "ECN is off on priority 3", "enable ECN", Subject.device("mlx5_0")))));
            } else {
                out.add(NodeInput.reachable(name, List.of()));
            }
        }
        return out;
    }

    /**
     * Both directions of each pair, as each end's agent reports them (an unreachable one reports
     * nothing): UDP probes, and with {@code bandwidth} a bandwidth test each way too, as the ring
     * round measures; a repair round probes alone.
     */
    List<LinkInput> measure(List<Pair> pairs, boolean bandwidth) {
        List<LinkInput> out = new ArrayList<>();
        for (Pair p : pairs) {
            direction(p.a(), p.b(), bandwidth, out);
            direction(p.b(), p.a(), bandwidth, out);
        }
        return out;
    }

    private void direction(String from, String to, boolean bandwidth, List<LinkInput> out) {
        if (unreachable.contains(from)) {
            return;
        }
        int sent = random.nextDouble() < 0.01 ? 10 : PROBES;
        if (unreachable.contains(to)) {
            out.add(LinkInput.probes(from, to, "udp", sent, sent, null));
            if (bandwidth) {
                out.add(LinkInput.bandwidth(from, to, null, "not measured: peer " + to + ": connect timed out"));
            }
            return;
        }
        double[] fault = linkFault.getOrDefault(new Pair(from, to).unordered(), new double[] {0, 0, 1});
        PathFault path = paths.between(from, to);
        double loss = random.nextDouble() * 0.001 + fault[0] + lossyNic.getOrDefault(from, 0.0) + lossyNic.getOrDefault(to, 0.0) + path.loss();
        int lost = 0;
        for (int i = 0; i < sent; i++) {
            lost += random.nextDouble() < loss ? 1 : 0;
        }
        double p50 = (base.get(from) + base.get(to)) * Math.exp(random.nextGaussian() * 0.15) + fault[1]
                + slowLatency.getOrDefault(from, 0.0) + slowLatency.getOrDefault(to, 0.0) + path.seconds();
        double noise = Math.exp(holdNoise.nextGaussian() * 0.2);
        out.add(LinkInput.probes(from, to, "udp", sent, lost, lost == sent ? null : p50, lost == sent ? null : hold.get(to).p50() * noise,
                lost == sent ? null : hold.get(to).p90() * noise));
        if (bandwidth) {
            double ratio = Math.min(0.97, 0.92 + random.nextGaussian() * 0.02) * fault[2]
                    * slowBandwidth.getOrDefault(from, 1.0) * slowBandwidth.getOrDefault(to, 1.0);
            out.add(LinkInput.bandwidth(from, to, ratio, null));
        }
    }

    private static String pad(int v, int n) {
        return Hostlist.pad(v, Integer.toString(n).length());
    }
}
