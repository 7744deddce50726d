package io.fabricd.http;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Source addresses that were recently answered with a status below 400: the scrapers and the
 * kubelet's probes, which come back from the same address every few seconds. Their new connections
 * are closed for room after those of other sources, and let in at accept beyond the absolute cap
 * ({@link AcceptGuard}). At most {@link #CAPACITY} addresses, the least recently answered forgotten
 * first: a flood that never completes a request never gets in here. New addresses join at most
 * {@link #JOINS_PER_SECOND} a second (one already known is refreshed at any rate), so that turning
 * the whole table over takes {@code CAPACITY / JOINS_PER_SECOND} = 128 s, longer than any scrape
 * or probe interval: a flood answered from thousands of addresses cannot push a scraper or the
 * kubelet out between two of their requests.
 *
 * <p>Asked from the acceptor thread and the event loop: synchronized.
 */
final class KnownSources {
    static final int CAPACITY = 1024;
    static final int JOINS_PER_SECOND = 8;
    private long second = -1;
    private int joined;
    private final LongSupplier nanos;

    KnownSources() {
        this(System::nanoTime);
    }

    KnownSources(LongSupplier nanos) {
        this.nanos = nanos;
    }

    private final Map<String, Boolean> recent = new LinkedHashMap<>(64, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > CAPACITY;
        }
    };

    /** A request from {@code source} was answered with a status below 400. */
    synchronized void answered(String source) {
        if (recent.get(source) != null) { // refreshed: the most recent now
            return;
        }
        long now = nanos.getAsLong() / 1_000_000_000L;
        if (now != second) {
            second = now;
            joined = 0;
        }
        if (joined < JOINS_PER_SECOND) {
            joined++;
            recent.put(source, Boolean.TRUE);
        }
    }

    synchronized boolean known(String source) {
        return recent.containsKey(source);
    }
}
