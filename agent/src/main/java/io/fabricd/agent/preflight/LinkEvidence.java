package io.fabricd.agent.preflight;

import io.fabricd.preflight.LinkInput;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What was measured between two nodes of the set, per direction and transport: the agents' recent
 * probe windows (one input per direction and transport: counts added over the sizes, the median RTT
 * of the smallest size), the on-demand rounds' probes and the bandwidth tests (an input each; the
 * gate adds them up). Not thread-safe: filled by one thread after each phase.
 */
final class LinkEvidence {
    /** Probes from {@code a} to {@code b} over {@code transport}. */
    private record Key(String a, String b, String transport) {
    }

    private static final class Acc {
        long sent;
        long lost;
        Double p50;
        int p50Size = Integer.MAX_VALUE;
    }

    private final Map<Key, Acc> links = new LinkedHashMap<>();
    /** The on-demand rounds and the bandwidth tests, one input each (the gate adds them up). */
    private final List<LinkInput> more = new ArrayList<>();

    /** One of a's probe windows to b. */
    void window(String a, String b, StateAnswer.Window w) {
        Acc x = acc(a, b, w.transport());
        x.sent += Math.max(0, w.sent());
        x.lost += Math.max(0, Math.min(w.lost(), w.sent()));
        if (w.p50Seconds() != null && w.p50Seconds() >= 0 && w.p50Seconds() < 1e6 && w.size() < x.p50Size) {
            x.p50 = w.p50Seconds();
            x.p50Size = w.size();
        }
    }

    /** An on-demand UDP round from a to b. */
    void round(String a, String b, long sent, long lost, Double p50) {
        long s = Math.max(0, sent);
        more.add(LinkInput.probes(a, b, "udp", s, Math.max(0, Math.min(lost, s)), p50 != null && p50 >= 0 && p50 < 1e6 ? p50 : null));
    }

    /** A bandwidth test from a to b: its ratio to the ceiling, or why there is none. */
    void bandwidth(String a, String b, Double ratio, String why) {
        more.add(LinkInput.bandwidth(a, b, ratio != null && ratio >= 0 && ratio < 1e6 ? ratio : null, why));
    }

    /** Whether a and b were measured in either direction. */
    boolean tested(String a, String b) {
        for (Key k : links.keySet()) {
            if (k.a().equals(a) && k.b().equals(b) || k.a().equals(b) && k.b().equals(a)) {
                return true;
            }
        }
        for (LinkInput l : more) {
            if (l.a().equals(a) && l.b().equals(b) || l.a().equals(b) && l.b().equals(a)) {
                return true;
            }
        }
        return false;
    }

    List<LinkInput> inputs() {
        List<LinkInput> out = new ArrayList<>();
        for (Map.Entry<Key, Acc> e : links.entrySet()) {
            Key k = e.getKey();
            Acc x = e.getValue();
            out.add(LinkInput.probes(k.a(), k.b(), k.transport(), x.sent, x.lost, x.p50));
        }
        out.addAll(more);
        return out;
    }

    private Acc acc(String a, String b, String transport) {
        return links.computeIfAbsent(new Key(a, b, transport), k -> new Acc());
    }
}
