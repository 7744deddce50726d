package io.fabricd.preflight;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/** One pair's measurements, both directions and every round together; the round trips per transport. */
final class LinkStats {
    /** The probes of one transport: their counts and their median round trip, weighted by the probes answered. */
    static final class Probes {
        long sent;
        long lost;
        private double p50Weighted;
        private long answered;

        /** The median round trip, weighted by the probes each measurement had answered; null when none was. */
        Double p50() {
            return answered == 0 ? null : p50Weighted / answered;
        }

        long answered() {
            return answered;
        }
    }

    final String a;
    final String b;
    /** Probes of every transport together (loss is judged on them all). */
    long sent;
    long lost;
    /** Per transport ({@code udp}, {@code rdma}): a round trip is compared with its own transport's only. */
    final Map<String, Probes> byTransport = new TreeMap<>();
    /** The worst bandwidth ratio measured, or null; 0 for a test that failed after the peer accepted it. */
    Double bandwidth;
    /**
     * What the test that gave the worst ratio moved and the ceiling it was held to, in bits per
     * second; without a ratio, those of the first test that moved data. Null when unknown.
     */
    Double bandwidthBps;
    Double ceilingBps;
    /** Why no ratio was measured (the first reason), when none was. */
    String bandwidthWhy;
    /** How the test that gave the worst ratio failed after the peer accepted it; null when it did not fail. */
    String bandwidthFailure;
    /** Why an attempt to probe gave nothing (the first reason given), when one did not. */
    String probeWhy;
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
        String transport = in.transport() == null ? "udp" : Texts.line(in.transport());
        if (in.sent() > 0) {
            Probes p = byTransport.computeIfAbsent(transport, t -> new Probes());
            p.sent += in.sent();
            p.lost += in.lost();
            long got = in.sent() - in.lost();
            if (in.p50Seconds() != null && got > 0) {
                p.p50Weighted += in.p50Seconds() * got;
                p.answered += got;
            }
        }
        if (in.bandwidthRatio() != null && (bandwidth == null || in.bandwidthRatio() < bandwidth)) {
            bandwidth = in.bandwidthRatio();
            bandwidthBps = in.bitsPerSecond();
            ceilingBps = in.ceilingBitsPerSecond();
            bandwidthFailure = in.failedTest() ? Texts.line(in.bandwidthWhy()) : null;
        } else if (in.bandwidthRatio() == null && in.bandwidthWhy() != null && bandwidthWhy == null) {
            bandwidthWhy = Texts.line(in.bandwidthWhy());
        }
        if (in.probeWhy() != null && probeWhy == null) {
            probeWhy = Texts.line(in.probeWhy());
        }
        if (bandwidth == null && bandwidthBps == null && in.bitsPerSecond() != null) {
            bandwidthBps = in.bitsPerSecond();
            ceilingBps = in.ceilingBitsPerSecond();
        }
        transports.add(transport);
    }

    double loss() {
        return sent == 0 ? 0 : (double) lost / sent;
    }

    /** The transport most of the answered probes went over, or null when none was answered. */
    String mainTransport() {
        String best = null;
        long most = 0;
        for (Map.Entry<String, Probes> e : byTransport.entrySet()) {
            if (e.getValue().answered() > most) {
                most = e.getValue().answered();
                best = e.getKey();
            }
        }
        return best;
    }

    Pair pair() {
        return new Pair(a, b);
    }
}
