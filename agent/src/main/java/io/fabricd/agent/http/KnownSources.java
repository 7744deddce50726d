package io.fabricd.agent.http;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Source addresses that were recently answered with a status below 400: the scrapers and the
 * kubelet's probes, which come back from the same address every few seconds. Their new connections
 * are closed for room after those of other sources, and let in at accept beyond the absolute cap
 * ({@link AcceptGuard}). At most {@link #CAPACITY} addresses, the least recently answered forgotten
 * first: a flood that never completes a request never gets in here, and one that does must keep
 * completing requests from more addresses than this, between two scrapes, to push a scraper out.
 *
 * <p>Asked from the acceptor thread and the event loop: synchronized.
 */
final class KnownSources {
    static final int CAPACITY = 1024;

    private final Map<String, Boolean> recent = new LinkedHashMap<>(64, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > CAPACITY;
        }
    };

    /** A request from {@code source} was answered with a status below 400. */
    synchronized void answered(String source) {
        recent.put(source, Boolean.TRUE);
    }

    synchronized boolean known(String source) {
        return recent.containsKey(source);
    }
}
