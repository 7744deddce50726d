package io.fabricd.preflight;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** One pair's measurements, both directions and every round together. */
final class LinkStats {
    final String a;
    final String b;
    long sent;
    long lost;
    private double p50Weighted;
    private long answered;
    /** The worst bandwidth ratio measured, or null. */
    Double bandwidth;
    String bandwidthWhy;
    final Set<String> transports = new TreeSet<>();

    private LinkStats(String a, String b) {
        this.a = a;
        this.b = b;
    }

    /**
     * The links between nodes of the set (others, and a node with itself, are left out), each pair
     * once with its ends in the set's order, in that order.
     */
    static List<LinkStats> collect(Map<String, Integer> order, List<LinkInput> inputs) {
        Map<Pair, LinkStats> byPair = new LinkedHashMap<>();
        for (LinkInput in : inputs) {
            Integer ia = order.get(in.a());
            Integer ib = order.get(in.b());
            if (ia == null || ib == null || ia.equals(ib)) {
                continue;
            }
            Pair p = ia < ib ? new Pair(in.a(), in.b()) : new Pair(in.b(), in.a());
            byPair.computeIfAbsent(p, k -> new LinkStats(k.a(), k.b())).add(in);
        }
        List<LinkStats> out = new ArrayList<>(byPair.values());
        out.sort((x, y) -> {
            int c = Integer.compare(order.get(x.a), order.get(y.a));
            return c != 0 ? c : Integer.compare(order.get(x.b), order.get(y.b));
        });
        return out;
    }

    private void add(LinkInput in) {
        sent += in.sent();
        lost += in.lost();
        long got = in.sent() - in.lost();
        if (in.p50Seconds() != null && got > 0) {
            p50Weighted += in.p50Seconds() * got;
            answered += got;
        }
        if (in.bandwidthRatio() != null && (bandwidth == null || in.bandwidthRatio() < bandwidth)) {
            bandwidth = in.bandwidthRatio();
        } else if (in.bandwidthRatio() == null && in.bandwidthWhy() != null && bandwidthWhy == null) {
            bandwidthWhy = Texts.line(in.bandwidthWhy());
        }
        if (in.transport() != null) {
            transports.add(Texts.line(in.transport()));
        }
    }

    double loss() {
        return sent == 0 ? 0 : (double) lost / sent;
    }

    /** The median round trip, weighted by the probes each measurement had answered; null when none was. */
    Double p50() {
        return answered == 0 ? null : p50Weighted / answered;
    }

    Pair pair() {
        return new Pair(a, b);
    }
}
