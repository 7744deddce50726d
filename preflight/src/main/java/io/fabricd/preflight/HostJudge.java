package io.fabricd.preflight;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Judges each node on its host's own share of the probes it answered: how long its responder held
 * them, from their arrival to its answer, which every answer carries and its partners' probes report.
 * The round trips leave that share out, rightly for locating a network fault; but a host that is slow
 * to answer (a starved CPU, stalls, soft lockups) slows every collective it joins, and the hold is its
 * own, never the network's nor its partners'.
 *
 * <p>Two statistics of the holds, one rule: the median (a host starved throughout) and the 90th
 * percentile (a host that answers some probes late: its median stays fast). Per node, transport and
 * statistic, the value of the windows and rounds that measured it that those carrying at least half
 * of its answered probes stay within (one window or round caught in a pause does not make it), with at
 * least the policy's minimum of probes, against the set's median of those on that transport (of an
 * even count the lower middle one, so that of two nodes the slower is judged against the faster). A
 * node with either above {@link Policy#hostFactor()} x the set's and above
 * {@link Policy#hostFloorSeconds()} is slow: the floor keeps a set of fast hosts from being told apart
 * by microseconds, and a set slow throughout is judged against itself, where no node stands out. A
 * pause or one slow sample in ten moves neither statistic.
 */
final class HostJudge {
    /** The statistics a node's holds are judged on, in the order their reason is given. */
    private enum Stat {
        P50("median", "it held the probes it answered ", ""),
        P90("90th percentile", "it held one in ten of the probes it answered ", " or longer");

        final String name;
        /** What the hold says, before and after its time. */
        final String held;
        final String after;

        Stat(String name, String held, String after) {
            this.name = name;
            this.held = held;
            this.after = after;
        }

        Double of(LinkInput in) {
            return this == P50 ? in.holdP50Seconds() : in.holdP90Seconds();
        }

        HostHold.Statistic of(HostHold h) {
            return this == P50 ? h.p50() : h.p90();
        }
    }

    /** One window's or round's statistic of the holds, and the answered probes it is of. */
    private record Measured(double seconds, long probes) {
    }

    private HostJudge() {
    }

    /** Per node of the set with enough probes answered, its holds per transport (in the transports' order). */
    static Map<String, List<HostHold>> judge(Map<String, Integer> order, List<LinkInput> links, Policy policy) {
        // node -> transport -> statistic -> its measurements
        Map<String, Map<String, Map<Stat, List<Measured>>>> measured = new HashMap<>();
        for (LinkInput in : links) {
            long answered = in.sent() - in.lost();
            if (answered <= 0 || in.a().equals(in.b()) || !order.containsKey(in.a()) || !order.containsKey(in.b())) {
                continue;
            }
            String transport = in.transport() == null ? "udp" : Texts.line(in.transport());
            for (Stat s : Stat.values()) {
                if (s.of(in) != null) {
                    measured.computeIfAbsent(in.b(), k -> new TreeMap<>()).computeIfAbsent(transport, k -> new EnumMap<>(Stat.class))
                            .computeIfAbsent(s, k -> new ArrayList<>()).add(new Measured(s.of(in), answered));
                }
            }
        }
        // node -> transport -> statistic -> its value, with enough probes
        Map<String, Map<String, Map<Stat, Measured>>> values = new HashMap<>();
        Map<String, Map<Stat, List<Double>>> ofSet = new HashMap<>();
        measured.forEach((node, ts) -> ts.forEach((t, byStat) -> byStat.forEach((s, m) -> {
            Measured v = value(m);
            if (v.probes() >= policy.minSamples()) {
                values.computeIfAbsent(node, k -> new TreeMap<>()).computeIfAbsent(t, k -> new EnumMap<>(Stat.class)).put(s, v);
                ofSet.computeIfAbsent(t, k -> new EnumMap<>(Stat.class)).computeIfAbsent(s, k -> new ArrayList<>()).add(v.seconds());
            }
        })));
        Map<String, List<HostHold>> out = new HashMap<>();
        values.forEach((node, ts) -> ts.forEach((t, byStat) -> {
            if (byStat.containsKey(Stat.P50)) {
                Map<Stat, HostHold.Statistic> judged = new EnumMap<>(Stat.class);
                byStat.forEach((s, v) -> {
                    double median = lowerMedian(ofSet.get(t).get(s));
                    double limit = Math.max(policy.hostFloorSeconds(), policy.hostFactor() * median);
                    judged.put(s, new HostHold.Statistic(v.seconds(), median, limit, v.probes(), v.seconds() > limit));
                });
                out.computeIfAbsent(node, k -> new ArrayList<>()).add(new HostHold(t, judged.get(Stat.P50), judged.get(Stat.P90),
                        judged.values().stream().anyMatch(HostHold.Statistic::above)));
            }
        }));
        return out;
    }

    /**
     * A node's statistic over the windows and rounds that measured it: the least of their values that
     * those with at least half of its answered probes stay within, and all its answered probes.
     */
    private static Measured value(List<Measured> m) {
        List<Measured> sorted = new ArrayList<>(m);
        sorted.sort(Comparator.comparingDouble(Measured::seconds));
        long all = sorted.stream().mapToLong(Measured::probes).sum();
        long within = 0;
        for (Measured x : sorted) {
            within += x.probes();
            if (2 * within >= all) {
                return new Measured(x.seconds(), all);
            }
        }
        throw new IllegalStateException("no measurement"); // never: the last one holds them all
    }

    /**
     * A reachable node's call with its holds as evidence ({@link NodeVerdict.Evidence#host()}) and, for each
     * transport on which it is slow, a reason of its own (its median's when that is above, else its
     * 90th percentile's): the node is excluded for its host, not for its links. A node its agent did
     * not answer for stays unknown.
     */
    static NodeJudge.Call onto(String node, NodeJudge.Call call, List<HostHold> holds) {
        if (holds == null || call.verdict() == Verdict.UNKNOWN) {
            return call;
        }
        List<String> reasons = new ArrayList<>(call.reasons());
        for (HostHold h : holds) {
            Stat s = Arrays.stream(Stat.values()).filter(x -> x.of(h) != null && x.of(h).above()).findFirst().orElse(null);
            if (s != null) {
                HostHold.Statistic v = s.of(h);
                reasons.add(node + ": slow host: " + s.held + Texts.time(v.holdSeconds()) + s.after + " (" + s.name + " of "
                        + v.probes() + " " + h.transport() + " probes; set " + s.name + " " + Texts.time(v.setMedianSeconds()) + ", limit "
                        + Texts.time(v.limitSeconds()) + "): a starved CPU or stalls slow every collective it joins; check its load"
                        + " and CPU throttling (top, mpstat), dmesg for soft lockups and hung tasks, and the fabricd agent's CPU"
                        + " limit, then rerun");
            }
        }
        Verdict v = reasons.size() > call.reasons().size() ? Verdict.EXCLUDE : call.verdict();
        return new NodeJudge.Call(v, reasons, call.evidence().withHost(holds));
    }

    private static double lowerMedian(List<Double> v) {
        double[] s = v.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(s);
        return s[(s.length - 1) / 2];
    }
}
