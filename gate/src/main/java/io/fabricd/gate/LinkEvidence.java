package io.fabricd.gate;

import io.fabricd.gate.wire.PreflightWire;
import io.fabricd.preflight.LinkInput;
import io.fabricd.preflight.Pair;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What was measured between two nodes of the set, per direction and transport: the agents' recent
 * probe windows (one input per direction and transport: counts added over the sizes, the median RTT
 * and the responder's median and 90th percentile hold of the smallest size), the on-demand rounds'
 * probes and the bandwidth tests (an input each; the gate adds them up), and the pairs a round meant
 * to measure that gave nothing (an attempt: its ends are judged on their links). Which pairs were measured or
 * tried is kept as it fills (unordered pairs), so that asking is as cheap as a set lookup whatever
 * the set's size. Not thread-safe: filled by one thread after each phase.
 */
final class LinkEvidence {
    /** Probes from {@code a} to {@code b} over {@code transport}. */
    private record Key(String a, String b, String transport) {
    }

    private static final class Acc {
        long sent;
        long lost;
        Double p50;
        /** The responder's median hold and its 90th percentile, of the same window as {@link #p50}. */
        Double hold;
        Double holdP90;
        int p50Size = Integer.MAX_VALUE;
    }

    private final Map<Key, Acc> links = new LinkedHashMap<>();
    /** The on-demand rounds and the bandwidth tests, one input each (the gate adds them up). */
    private final List<LinkInput> more = new ArrayList<>();
    /** Every pair measured or tried, either way round ({@link Pair#unordered()}). */
    private final Set<Pair> tested = new HashSet<>();

    /** One of a's probe windows to b. */
    void window(String a, String b, PreflightWire.Window w) {
        if (!note(a, b)) {
            return;
        }
        Acc x = links.computeIfAbsent(new Key(a, b, w.transport()), k -> new Acc());
        x.sent += Math.max(0, w.sent());
        x.lost += Math.max(0, Math.min(w.lost(), w.sent()));
        if (time(w.p50Seconds()) != null && w.size() < x.p50Size) {
            x.p50 = w.p50Seconds();
            x.hold = time(w.holdP50Seconds());
            x.holdP90 = time(w.holdP90Seconds());
            x.p50Size = w.size();
        }
    }

    /**
     * An on-demand UDP round from a to b: its median round trip, and the median and 90th percentile of
     * how long b's responder held its probes (null: not said).
     */
    void round(String a, String b, long sent, long lost, Double p50, Double hold, Double holdP90) {
        if (note(a, b)) {
            long s = Math.max(0, sent);
            more.add(LinkInput.probes(a, b, "udp", s, Math.max(0, Math.min(lost, s)), time(p50), time(hold), time(holdP90)));
        }
    }

    /** A time in seconds an agent gave, when it is one (an agent's answer is not trusted to be sane), else unknown. */
    private static Double time(Double seconds) {
        return seconds != null && seconds >= 0 && seconds < 1e6 ? seconds : null;
    }

    /** A round meant a to probe b and got nothing (a could not be asked, or answered an error for b): {@code why}, one line. */
    void tried(String a, String b, String why) {
        if (note(a, b)) {
            more.add(LinkInput.tried(a, b, why));
        }
    }

    /** A bandwidth test from a to b: its ratio to the ceiling, or why there is none (not measured). */
    void bandwidth(String a, String b, Double ratio, String why) {
        bandwidth(a, b, ratio, null, null, why);
    }

    /**
     * A bandwidth test from a to b that moved {@code bps} against {@code ceiling}: its ratio to the
     * ceiling, or why there is none. A value out of range (an agent's answer is not trusted to be
     * sane) is unknown.
     */
    void bandwidth(String a, String b, Double ratio, Double bps, Double ceiling, String why) {
        if (note(a, b)) {
            more.add(LinkInput.bandwidth(a, b, ratio != null && ratio >= 0 && ratio < 1e6 ? ratio : null, rate(bps), rate(ceiling), why));
        }
    }

    /** A rate in bits per second up to 1 Pb/s (no link is faster), else unknown. */
    private static Double rate(Double bps) {
        return bps != null && bps >= 0 && bps <= 1e15 ? bps : null;
    }

    /** A bandwidth test from a to b the peer accepted that then failed: the link is bad, {@code why} says how. */
    void bandwidthFailed(String a, String b, String why) {
        if (note(a, b)) {
            more.add(LinkInput.bandwidthFailed(a, b, why));
        }
    }

    /** Whether a and b were measured or tried in either direction. */
    boolean tested(String a, String b) {
        return !a.equals(b) && tested.contains(new Pair(a, b).unordered());
    }

    /** Every pair measured or tried, each once ({@link Pair#unordered()}); a view, not a copy. */
    Set<Pair> testedPairs() {
        return Collections.unmodifiableSet(tested);
    }

    List<LinkInput> inputs() {
        List<LinkInput> out = new ArrayList<>(links.size() + more.size());
        for (Map.Entry<Key, Acc> e : links.entrySet()) {
            Key k = e.getKey();
            Acc x = e.getValue();
            out.add(LinkInput.probes(k.a(), k.b(), k.transport(), x.sent, x.lost, x.p50, x.hold, x.holdP90));
        }
        out.addAll(more);
        return out;
    }

    /** Notes the pair; false for a node with itself (no link). */
    private boolean note(String a, String b) {
        if (a.equals(b)) {
            return false;
        }
        tested.add(new Pair(a, b).unordered());
        return true;
    }
}
