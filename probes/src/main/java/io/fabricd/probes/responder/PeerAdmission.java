package io.fabricd.probes.responder;

import java.net.SocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * When a source (address and port) answered through the shared socket earns a socket of its own:
 * once {@link #ANSWERS} requests of one session were answered from it — each authenticated, fresh
 * and never answered before, which a replayed copy is not — while no other source sent a request
 * of that session, and at most {@link #PER_SECOND} new sockets a second (burst {@link #BURST}).
 *
 * <p>A genuine requester sends a whole session of probes from one source port and qualifies with
 * its second one. A captured probe replayed from new source ports is answered at most once in all;
 * a session whose captured probes come from more than one source is taken as replayed and none of
 * its sources qualifies, whatever ports they come from; an attacker who sends two fresh captured
 * probes of one session from one port (copies of probes on their way to another agent) makes
 * sockets no faster than the rate, and the least recently used socket makes room for them. Sessions
 * are remembered in a bounded table, the least recently answered forgotten first. Used by the
 * responder's thread only.
 */
final class PeerAdmission {
    static final int ANSWERS = 2;
    static final double PER_SECOND = 32;
    static final int BURST = 64;
    /** Sessions remembered on their way to a socket: a few hundred bytes each. */
    static final int SESSIONS = 4096;

    /** A session's source, its answered requests (up to {@link #ANSWERS}), and whether others sent some too. */
    private static final class Seen {
        final SocketAddress source;
        int answers = 1;
        boolean spread;

        Seen(SocketAddress source) {
            this.source = source;
        }
    }

    private final RateLimiter sockets;
    private final Map<Long, Seen> sessions = new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Seen> e) {
            return size() > SESSIONS;
        }
    };

    PeerAdmission() {
        this(new RateLimiter(PER_SECOND, BURST));
    }

    PeerAdmission(RateLimiter sockets) {
        this.sockets = sockets;
    }

    /** A request of {@code session} from {@code from} was answered through the shared socket: true when it gets a socket now. */
    boolean answered(SocketAddress from, long session) {
        Seen s = sessions.get(session);
        if (s == null) {
            sessions.put(session, new Seen(from));
            return false;
        }
        if (s.spread || !s.source.equals(from)) {
            s.spread = true; // one session from two sources: copies, not a requester's own
            return false;
        }
        if (s.answers < ANSWERS) {
            s.answers++;
        }
        return s.answers >= ANSWERS && sockets.tryAcquire(); // refused for the rate: its next request tries again
    }

    /** Sessions remembered now (tests). */
    int sessions() {
        return sessions.size();
    }
}
