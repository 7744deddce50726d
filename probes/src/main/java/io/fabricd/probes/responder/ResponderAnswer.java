package io.fabricd.probes.responder;

import io.fabricd.probes.ProbeKey;
import io.fabricd.probes.ProbePacket;
import java.nio.ByteBuffer;

/** The answer to one probe request, the same for the UDP and the verbs responder. */
public final class ResponderAnswer {
    private ResponderAnswer() {
    }

    /**
     * What every responder does with a received packet {@code buf[0, n)}, received at {@code t0}
     * (nanoTime): refuse a stale or replayed request by its header ({@link #screen}), authenticate
     * it, remember it as answered, rate-limit against the source's budget, count, and turn it in
     * place into the answer. Returns the answer's size, or -1 when the packet is dropped (and counted).
     */
    public static int answer(byte[] buf, int n, long t0, ProbeKey key, ResponderBudget budget, ResponderStats stats) {
        String early = screen(buf, n, stats.replays);
        if (early != null) {
            stats.dropped(early);
            return -1;
        }
        ProbePacket p;
        try {
            p = ProbePacket.decode(buf, n, key);
        } catch (ProbePacket.RejectedException e) {
            stats.dropped(e.reason() == ProbePacket.Reject.UNAUTHENTICATED ? "unauthenticated" : "malformed");
            return -1;
        }
        if (p.type() != ProbePacket.REQUEST) {
            stats.dropped("malformed");
            return -1;
        }
        ReplayWindow.Verdict v = stats.replays.check(p.session(), p.sequence(), p.sentAtMillis(), System.currentTimeMillis());
        if (v != ReplayWindow.Verdict.OK) {
            stats.dropped(v == ReplayWindow.Verdict.STALE ? "stale" : "replayed");
            return -1;
        }
        // charged at the request's arrival: requests that came within the rate are answered even
        // when this thread was held up meanwhile (descheduled, a pause of the JVM) and reads a backlog
        if (!budget.answers.tryAcquire(t0)) {
            budget.ownDrop();
            stats.dropped("rate_limited");
            return -1;
        }
        new ProbePacket(ProbePacket.RESPONSE, p.sequence(), p.session(), p.t1(), System.nanoTime() - t0, p.size(),
                budget.overloaded(t0) ? ProbePacket.OVERLOADED : 0).encode(buf, key);
        stats.answered();
        return p.size();
    }

    /** The session of the answer {@link #answer} wrote into {@code buf}: its request's. */
    static long session(byte[] buf) {
        return ByteBuffer.wrap(buf).getLong(16);
    }

    /**
     * Why a packet is dropped before its tag is checked, by its cleartext header alone; null when the
     * tag decides. A request whose send time is off by more than 30 s ({@code stale}), or whose
     * session and sequence were answered already ({@code replayed}), costs no HMAC: a replay storm
     * costs a header read per packet, whatever source port each copy comes from. A forgery that
     * copies a seen header is counted as {@code replayed}: it would have been refused either way.
     */
    static String screen(byte[] buf, int n, ReplayWindow replays) {
        if (n < ProbePacket.MIN_SIZE) {
            return "malformed";
        }
        ByteBuffer b = ByteBuffer.wrap(buf, 0, n);
        if (b.getInt(0) != ProbePacket.MAGIC || (b.get(4) & 0xff) != ProbePacket.VERSION || b.getInt(40) != n
                || (b.get(5) & 0xff) != ProbePacket.REQUEST) {
            return "malformed";
        }
        return switch (replays.seen(b.getLong(16), b.getLong(8), b.getLong(32), System.currentTimeMillis())) {
            case STALE -> "stale";
            case REPLAYED -> "replayed";
            case OK -> null;
        };
    }
}
