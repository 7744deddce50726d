package io.fabricd.http;

import java.util.HashMap;
import java.util.Map;

/**
 * The signed POST bodies being read now ({@link SignedPost}), per source address and in all. Each
 * holds one of {@code http.max_requests} for as long as its body takes to arrive (up to
 * {@link SignedPost#BODY_DEADLINE_MS}); a key holder sending bodies slowly on many connections
 * would otherwise hold every slot, and scrapes would get 503. At most {@link #PER_SOURCE} from one
 * source (an IPv6 address's /64, as {@link BcryptGate#source} counts it) and half the request
 * slots in all are taken by bodies on their way: one more is refused at once, 429 with
 * {@code Retry-After} (busy: the job gate asks again then). The agents and the gate send one such
 * request at a time to an agent, whose body arrives with its head.
 *
 * <p>Called on the event loop; synchronized all the same.
 */
public final class BodyReads {
    /** Bodies read at once from one source. */
    static final int PER_SOURCE = 2;
    private final int total;
    private final Map<String, Integer> bySource = new HashMap<>();
    private int reading;

    /** @param maxRequests http.max_requests: half of it (at least one) for bodies on their way */
    public BodyReads(int maxRequests) {
        this.total = Math.max(1, maxRequests / 2);
    }

    /** Why a body from {@code source} is not read now (one line, for a 429); null: counted in, until {@link #done}. */
    synchronized String enter(String source) {
        int mine = bySource.getOrDefault(source, 0);
        if (mine >= PER_SOURCE) {
            return "this address is sending " + PER_SOURCE + " request bodies already, the most read at once"
                    + " from one address: send one when another has arrived";
        }
        if (reading >= total) {
            return "the agent is reading as many request bodies at once as it takes (" + total + ", half of"
                    + " http.max_requests): try again later";
        }
        bySource.put(source, mine + 1);
        reading++;
        return null;
    }

    /** A body counted in by {@link #enter} has arrived, was cut, or its connection closed. */
    synchronized void done(String source) {
        if (bySource.containsKey(source)) {
            bySource.computeIfPresent(source, (k, n) -> n <= 1 ? null : n - 1);
            reading--;
        }
    }
}
