package io.fabricd.probes.responder;

import java.net.SocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * When a source (address and port) answered through the shared socket earns a socket of its own:
 * once {@link #ANSWERS} of its requests were answered — each authenticated, fresh and never
 * answered before, which a replayed copy is not — and at most {@link #PER_SECOND} new sockets a
 * second (burst {@link #BURST}). A genuine requester keeps its source port for a whole session of
 * probes and qualifies with its second one; a captured probe replayed from new source ports is
 * answered at most once in all, so no copy's source qualifies, and sources with fresh probes of
 * their own (copies of probes captured on their way to another agent) make sockets no faster
 * than the rate. Sources short of {@link #ANSWERS} are remembered in a bounded table, the
 * least recently answered forgotten first. Used by the responder's thread only.
 */
final class PeerAdmission {
    static final int ANSWERS = 2;
    static final double PER_SECOND = 32;
    static final int BURST = 64;
    /** Sources remembered on their way to {@link #ANSWERS}: a few hundred bytes each. */
    static final int CANDIDATES = 4096;

    private final RateLimiter sockets;
    private final Map<SocketAddress, int[]> candidates = new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<SocketAddress, int[]> e) {
            return size() > CANDIDATES;
        }
    };

    PeerAdmission() {
        this(new RateLimiter(PER_SECOND, BURST));
    }

    PeerAdmission(RateLimiter sockets) {
        this.sockets = sockets;
    }

    /** A request from {@code from} was answered through the shared socket: true when it gets a socket now. */
    boolean answered(SocketAddress from) {
        int[] n = candidates.computeIfAbsent(from, k -> new int[1]);
        if (n[0] < ANSWERS) {
            n[0]++;
        }
        if (n[0] < ANSWERS || !sockets.tryAcquire()) {
            return false; // one answer more, and the next one tries again
        }
        candidates.remove(from);
        return true;
    }

    /** Sources remembered now (tests). */
    int candidates() {
        return candidates.size();
    }
}
