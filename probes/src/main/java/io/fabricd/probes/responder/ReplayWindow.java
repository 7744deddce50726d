package io.fabricd.probes.responder;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What makes a captured probe request useless to replay: a request is answered only when its
 * wall-clock send time is within {@link #MAX_AGE_MS} of the responder's clock, and each (session,
 * sequence) once — the last 64 sequences of every session seen within that time are remembered,
 * as IPsec's anti-replay window does. A replayed request is dropped and counted, never answered,
 * also to a spoofed source.
 *
 * <p>Bounded: at most {@link #MAX_SESSIONS} sessions are remembered, the oldest forgotten first
 * (a fabric's agents open a few sessions per peer and round; ten thousand peers probing one agent
 * every 10 s stay well inside it).
 */
final class ReplayWindow {
    /** Clocks of a fabric's hosts agree within this (NTP keeps them within milliseconds). */
    static final long MAX_AGE_MS = 30_000;
    static final int MAX_SESSIONS = 16_384;
    private static final int WINDOW = 64;

    enum Verdict { OK, STALE, REPLAYED }

    /** Per session: the highest sequence seen and a bitmap of the 64 below it. */
    private final Map<Long, long[]> sessions = new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, long[]> e) {
            return size() > MAX_SESSIONS;
        }
    };

    /**
     * What {@link #check} would say, remembering nothing: the responder asks before it checks a
     * packet's tag, so that a stale or replayed request (or a forgery that claims to be one) costs
     * a look at its cleartext header, not an HMAC. Only an authenticated request is remembered.
     */
    synchronized Verdict seen(long session, long sequence, long sentAtMillis, long nowMillis) {
        if (Math.abs(nowMillis - sentAtMillis) > MAX_AGE_MS || sequence < 0) {
            return Verdict.STALE;
        }
        long[] w = sessions.get(session);
        if (w == null || sequence > w[0]) {
            return Verdict.OK;
        }
        long back = w[0] - sequence;
        // older than the window: taken as seen
        return back >= WINDOW || (w[1] & (1L << back)) != 0 ? Verdict.REPLAYED : Verdict.OK;
    }

    /** {@link #seen}, and an OK request is remembered as answered. */
    synchronized Verdict check(long session, long sequence, long sentAtMillis, long nowMillis) {
        Verdict v = seen(session, sequence, sentAtMillis, nowMillis);
        long[] w = sessions.get(session);
        if (v != Verdict.OK) {
            return v;
        } else if (w == null) {
            sessions.put(session, new long[] {sequence, 1L});
        } else if (sequence > w[0]) {
            long shift = sequence - w[0];
            w[1] = shift >= WINDOW ? 1L : (w[1] << shift) | 1L;
            w[0] = sequence;
        } else {
            w[1] |= 1L << (w[0] - sequence);
        }
        return Verdict.OK;
    }
}
