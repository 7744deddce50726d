package io.fabricd.preflight;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Judges each link on its own measurements against the set's medians and the policy: its loss against
 * the median loss, its round trip per transport against that transport's median (UDP and RDMA round
 * trips differ by nature), its bandwidth against its ceiling; and its loss and round trips against the
 * policy's absolute bounds ({@link AbsoluteBounds}), which a fault that hurts most of the set's pairs
 * exceeds while the medians rise with it.
 */
final class LinkJudge {
    /** What measured a link: its probes (loss and round trips) or its bandwidth tests. */
    enum Measure { PROBES, BANDWIDTH }

    /**
     * What is wrong with a link, and what to do when the link itself is to blame.
     *
     * @param kind what measured it
     */
    record Problem(String what, String advice, Measure kind) {
    }

    /**
     * A link's call before anything is blamed: PASS, EXCLUDE (problems) or UNKNOWN (too little measured).
     *
     * @param judged what was measured enough to judge: probes, bandwidth, both or neither
     */
    record Call(LinkStats stats, Verdict verdict, List<Problem> problems, LinkVerdict.Evidence evidence, Set<Measure> judged) {
        boolean bad() {
            return verdict == Verdict.EXCLUDE;
        }

        /** What its problems were found by: probes, bandwidth, both or none. */
        Set<Measure> badKinds() {
            Set<Measure> k = EnumSet.noneOf(Measure.class);
            problems.forEach(p -> k.add(p.kind()));
            return k;
        }
    }

    private final Policy policy;
    private final double medianLoss;
    /** Per transport, the median of the round trips of the links with enough of its probes. */
    private final Map<String, Double> medianP50 = new TreeMap<>();

    private LinkJudge(Policy policy, List<LinkStats> links) {
        this.policy = policy;
        this.medianLoss = median(links.stream().filter(this::enoughProbes).mapToDouble(LinkStats::loss).toArray());
        Map<String, List<Double>> p50s = new TreeMap<>();
        for (LinkStats l : links) {
            l.byTransport.forEach((t, p) -> {
                if (p.sent >= policy.minSamples() && p.p50() != null) {
                    p50s.computeIfAbsent(t, k -> new ArrayList<>()).add(p.p50());
                }
            });
        }
        p50s.forEach((t, v) -> medianP50.put(t, median(v.stream().mapToDouble(Double::doubleValue).toArray())));
    }

    static List<Call> judge(Policy policy, List<LinkStats> links) {
        LinkJudge j = new LinkJudge(policy, links);
        return links.stream().map(j::call).toList();
    }

    private boolean enoughProbes(LinkStats l) {
        return l.sent >= policy.minSamples();
    }

    private Call call(LinkStats l) {
        List<Problem> problems = new ArrayList<>();
        boolean probes = enoughProbes(l);
        boolean relativeLoss = l.loss() > Math.max(policy.lossFactor() * medianLoss, Policy.LOSS_FLOOR);
        if (probes && (relativeLoss || l.loss() > policy.bounds().maxLossRatio())) {
            problems.add(new Problem(Texts.percent(l.loss()) + " probe loss (set median " + Texts.percent(medianLoss)
                    + (relativeLoss ? "" : ", above the absolute bound of " + Texts.percent(policy.bounds().maxLossRatio())) + ")",
                    "check cables/optics on both ends and the switch ports' error counters", Measure.PROBES));
        }
        for (Map.Entry<String, LinkStats.Probes> e : l.byTransport.entrySet()) {
            Double p50 = e.getValue().p50();
            Double median = medianP50.get(e.getKey());
            Double bound = policy.bounds().maxP50(e.getKey());
            if (e.getValue().sent < policy.minSamples() || p50 == null || median == null) {
                continue;
            }
            boolean relative = p50 > policy.latencyFactor() * median && p50 - median >= Policy.LATENCY_MARGIN_SECONDS;
            if (relative || bound != null && p50 > bound) {
                String over = medianP50.size() > 1 ? e.getKey() + " " : "";
                problems.add(new Problem(over + "p50 " + Texts.time(p50) + " (set median " + Texts.time(median)
                        + (relative ? "" : ", above the absolute bound of " + Texts.time(bound)) + ")",
                        "check the switch path for congestion and both ends' NIC (firmware, PCIe, interrupts)", Measure.PROBES));
            }
        }
        if (l.bandwidthFailure != null) {
            problems.add(new Problem("bandwidth test failed after the peer accepted it (" + l.bandwidthFailure + ")",
                    "check both ends' RDMA ports (state, GIDs, MTU) and the path between them", Measure.BANDWIDTH));
        } else if (l.bandwidth != null && l.bandwidth < policy.bandwidthRatio()) {
            problems.add(new Problem(Texts.percent(l.bandwidth) + " of the link's ceiling ("
                    + (l.bandwidthBps != null && l.ceilingBps != null ? Texts.rate(l.bandwidthBps) + " of " + Texts.rate(l.ceilingBps)
                    + ", " : "") + "at least " + Texts.percent(policy.bandwidthRatio()) + " expected)",
                    "check link speed and width, cables/optics and PCIe on both ends", Measure.BANDWIDTH));
        }
        Set<Measure> judged = EnumSet.noneOf(Measure.class);
        if (probes) {
            judged.add(Measure.PROBES);
        }
        if (l.bandwidth != null) {
            judged.add(Measure.BANDWIDTH);
        }
        Verdict v = !problems.isEmpty() ? Verdict.EXCLUDE : !judged.isEmpty() ? Verdict.PASS : Verdict.UNKNOWN;
        return new Call(l, v, List.copyOf(problems), evidence(l), judged);
    }

    private LinkVerdict.Evidence evidence(LinkStats l) {
        String main = l.mainTransport();
        Map<String, LinkVerdict.RoundTrip> each = new TreeMap<>();
        l.byTransport.forEach((t, p) -> {
            if (p.p50() != null) {
                each.put(t, new LinkVerdict.RoundTrip(p.p50(), medianP50.get(t)));
            }
        });
        // how the test that gave the worst ratio failed, else why no test gave one
        String bandwidthWhy = l.bandwidthFailure != null ? l.bandwidthFailure : l.bandwidth == null ? l.bandwidthWhy : null;
        return new LinkVerdict.Evidence(l.sent, l.lost, l.loss(), medianLoss, main == null ? null : l.byTransport.get(main).p50(),
                main == null ? null : medianP50.get(main), each.size() > 1 ? each : null, l.bandwidth,
                l.bandwidthBps == null ? null : new LinkVerdict.Rate(l.bandwidthBps, l.ceilingBps), bandwidthWhy, List.copyOf(l.transports),
                l.sent < policy.minSamples() ? l.probeWhy : null, null);
    }

    /**
     * The reason of a link measured too little to judge: why its probes gave nothing when an attempt
     * said so (the gate kept asking until its time was spent), else a longer round to ask for.
     */
    static String tooFew(Policy policy, LinkStats l) {
        String head = Texts.link(l.a, l.b) + ": " + l.sent + " probes, fewer than " + policy.minSamples() + ", and no bandwidth measured";
        return l.probeWhy == null ? head + ": rerun with a longer probe round (--timeout)"
                : head + " (" + l.probeWhy + "): check both agents' probe responders and logs, then rerun";
    }

    private static double median(double[] v) {
        if (v.length == 0) {
            return 0;
        }
        double[] s = v.clone();
        Arrays.sort(s);
        int m = s.length / 2;
        return s.length % 2 == 1 ? s[m] : (s[m - 1] + s[m]) / 2;
    }
}
