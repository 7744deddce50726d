package io.fabricd.preflight;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Judges each link on its own measurements against the set's medians and the policy. */
final class LinkJudge {
    /** What is wrong with a link, and what to do when the link itself is to blame. */
    record Problem(String what, String advice) {
    }

    /** A link's call before anything is blamed: PASS, EXCLUDE (problems) or UNKNOWN (too little measured). */
    record Call(LinkStats stats, Verdict verdict, List<Problem> problems, Map<String, Object> evidence) {
        boolean bad() {
            return verdict == Verdict.EXCLUDE;
        }
    }

    private final Policy policy;
    private final double medianLoss;
    private final Double medianP50;

    private LinkJudge(Policy policy, List<LinkStats> links) {
        this.policy = policy;
        this.medianLoss = median(links.stream().filter(this::enoughProbes).mapToDouble(LinkStats::loss).toArray());
        double[] p50s = links.stream().filter(this::enoughProbes).filter(l -> l.p50() != null).mapToDouble(LinkStats::p50).toArray();
        this.medianP50 = p50s.length == 0 ? null : median(p50s);
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
        if (probes && l.loss() > Math.max(policy.lossFactor() * medianLoss, Policy.LOSS_FLOOR)) {
            problems.add(new Problem(Texts.percent(l.loss()) + " probe loss (set median " + Texts.percent(medianLoss) + ")",
                    "check cables/optics on both ends and the switch ports' error counters"));
        }
        Double p50 = l.p50();
        if (probes && p50 != null && medianP50 != null && p50 > policy.latencyFactor() * medianP50
                && p50 - medianP50 >= Policy.LATENCY_MARGIN_SECONDS) {
            problems.add(new Problem("p50 " + Texts.time(p50) + " (set median " + Texts.time(medianP50) + ")",
                    "check the switch path for congestion and both ends' NIC (firmware, PCIe, interrupts)"));
        }
        if (l.bandwidth != null && l.bandwidth < policy.bandwidthRatio()) {
            problems.add(new Problem(Texts.percent(l.bandwidth) + " of the link's ceiling (at least "
                    + Texts.percent(policy.bandwidthRatio()) + " expected)",
                    "check link speed and width, cables/optics and PCIe on both ends"));
        }
        Verdict v = !problems.isEmpty() ? Verdict.EXCLUDE : probes || l.bandwidth != null ? Verdict.PASS : Verdict.UNKNOWN;
        return new Call(l, v, List.copyOf(problems), evidence(l, p50));
    }

    private Map<String, Object> evidence(LinkStats l, Double p50) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put(Evidence.SENT, l.sent);
        e.put(Evidence.LOST, l.lost);
        e.put(Evidence.LOSS_RATIO, l.loss());
        e.put(Evidence.MEDIAN_LOSS_RATIO, medianLoss);
        e.put(Evidence.P50_SECONDS, p50);
        e.put(Evidence.MEDIAN_P50_SECONDS, medianP50);
        e.put(Evidence.BANDWIDTH_RATIO, l.bandwidth);
        if (l.bandwidth == null && l.bandwidthWhy != null) {
            e.put(Evidence.BANDWIDTH_WHY, l.bandwidthWhy);
        }
        e.put(Evidence.TRANSPORTS, List.copyOf(l.transports));
        return e;
    }

    /** The reason of a link measured too little to judge. */
    static String tooFew(Policy policy, LinkStats l) {
        return Texts.link(l.a, l.b) + ": " + l.sent + " probes, fewer than " + policy.minSamples()
                + ", and no bandwidth measured: rerun with a longer probe round (--timeout)";
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
