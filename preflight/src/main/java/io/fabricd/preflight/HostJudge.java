package io.fabricd.preflight;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Judges each node on its host's own share of the probes it answered: how long its responder held
 * them, from their arrival to its answer, which every answer carries and its partners' probes report.
 * The round trips leave that share out, rightly for locating a network fault; but a host that is slow
 * to answer (a starved CPU, stalls, soft lockups) slows every collective it joins, and the hold is its
 * own, never the network's nor its partners'. Per node and transport: the median hold of the probes
 * sent to it (each measurement's median weighted by the probes it had answered), with at least the
 * policy's minimum of probes, against the set's median of those on that transport (of an even count
 * the lower middle one, so that of two nodes the slower is judged against the faster). A node above
 * {@link Policy#latencyFactor()} x that median and above {@link Policy#hostFloorSeconds()} is slow:
 * the floor keeps a set of fast hosts from being told apart by microseconds, and a set slow
 * throughout is judged against itself, where no node stands out.
 */
final class HostJudge {
    /** One node's probes on one transport: their holds' medians weighted by the probes answered. */
    private static final class Holds {
        double weighted;
        long answered;

        double median() {
            return weighted / answered;
        }
    }

    private HostJudge() {
    }

    /** Per node of the set with enough probes answered, its holds per transport (in the transports' order). */
    static Map<String, List<HostHold>> judge(Map<String, Integer> order, List<LinkInput> links, Policy policy) {
        Map<String, Map<String, Holds>> byNode = new HashMap<>();
        for (LinkInput in : links) {
            long answered = in.sent() - in.lost();
            if (in.holdP50Seconds() == null || answered <= 0 || in.a().equals(in.b()) || !order.containsKey(in.a())
                    || !order.containsKey(in.b())) {
                continue;
            }
            Holds h = byNode.computeIfAbsent(in.b(), k -> new TreeMap<>())
                    .computeIfAbsent(in.transport() == null ? "udp" : Texts.line(in.transport()), k -> new Holds());
            h.weighted += in.holdP50Seconds() * answered;
            h.answered += answered;
        }
        Map<String, List<Double>> values = new TreeMap<>();
        byNode.values().forEach(ts -> ts.forEach((t, h) -> {
            if (h.answered >= policy.minSamples()) {
                values.computeIfAbsent(t, k -> new ArrayList<>()).add(h.median());
            }
        }));
        Map<String, Double> medians = new HashMap<>();
        values.forEach((t, v) -> medians.put(t, lowerMedian(v)));
        Map<String, List<HostHold>> out = new HashMap<>();
        byNode.forEach((node, ts) -> ts.forEach((t, h) -> {
            if (h.answered >= policy.minSamples()) {
                double median = medians.get(t);
                double limit = Math.max(policy.hostFloorSeconds(), policy.latencyFactor() * median);
                out.computeIfAbsent(node, k -> new ArrayList<>()).add(new HostHold(t, h.median(), median, limit, h.answered,
                        h.median() > limit));
            }
        }));
        return out;
    }

    /**
     * A reachable node's call with its holds as evidence ({@link Evidence#HOST}) and, for each one
     * that is slow, a reason of its own: the node is excluded for its host, not for its links. A node
     * its agent did not answer for stays unknown.
     */
    static NodeJudge.Call onto(String node, NodeJudge.Call call, List<HostHold> holds) {
        if (holds == null || call.verdict() == Verdict.UNKNOWN) {
            return call;
        }
        Map<String, Object> evidence = new LinkedHashMap<>(call.evidence());
        evidence.put(Evidence.HOST, List.copyOf(holds));
        List<String> reasons = new ArrayList<>(call.reasons());
        for (HostHold h : holds) {
            if (h.slow()) {
                reasons.add(node + ": slow host: it held the probes it answered " + Texts.time(h.holdP50Seconds()) + " (median of "
                        + h.probes() + " " + h.transport() + " probes; set median " + Texts.time(h.medianHoldP50Seconds()) + ", limit "
                        + Texts.time(h.limitSeconds()) + "): a starved CPU or stalls slow every collective it joins; check its load"
                        + " and CPU throttling (top, mpstat), dmesg for soft lockups and hung tasks, and the fabricd agent's CPU"
                        + " limit, then rerun");
            }
        }
        Verdict v = reasons.size() > call.reasons().size() ? Verdict.EXCLUDE : call.verdict();
        return new NodeJudge.Call(v, reasons, evidence);
    }

    private static double lowerMedian(List<Double> v) {
        double[] s = v.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(s);
        return s[(s.length - 1) / 2];
    }
}
