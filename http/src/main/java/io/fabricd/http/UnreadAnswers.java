package io.fabricd.http;

import io.micrometer.core.instrument.Counter;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerResponse;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes of answers written and not yet read by their clients, kept within a budget sized from
 * the heap ({@link HeapBudget#unreadBytes(long)}). A request's slot of {@code http.max_requests}
 * is free once its answer is written, but the answer then sits in its connection's outbound
 * buffer (a copy in direct memory) until the client reads it, or {@code http.idle_timeout} closes
 * the connection: clients that ask for {@code /api/v1/snapshot} or {@code /metrics} on many
 * connections and never read would otherwise hold hundreds of MB.
 *
 * <p>{@link #check()} sums the bytes every open connection ({@link AcceptGuard} adds each one it
 * accepts) holds; beyond the budget it closes connections until the rest is within it: those
 * holding bytes unread for {@link #STALLED_NANOS} or more first, then the others, the most bytes
 * first. A scrape that reads its answer holds it for milliseconds, which no look sees but by
 * chance, and is closed only when the stalled ones are not enough. It looks every time answers of
 * a quarter of the budget were written since the last look (so that a burst of answers adds at
 * most that, and one answer, between two looks) and every five seconds (small answers written
 * elsewhere, such as refusals: a wake-up of an idle agent every five seconds, as often as Vert.x's
 * blocked-thread check).
 *
 * <p>Reading a channel's pending bytes from another thread is safe (a volatile); {@link #check()}
 * is synchronized; {@link #add} and the removal on close from any thread.
 */
final class UnreadAnswers {
    /** How often to look, whatever was written. */
    static final long PERIOD_MS = 5000;
    /** Bytes unread this long are a stalled client's, closed first. */
    static final long STALLED_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    private final long budget;
    /** Counts the connections closed here. */
    private final Counter shed;
    /** Every open connection, with when its unread bytes were first seen. */
    private final Map<Channel, Held> open = new ConcurrentHashMap<>();
    /** Bytes of answers written since the last look. */
    private final AtomicLong written = new AtomicLong();

    /** A connection as the last look saw it. */
    private static final class Held {
        final Channel ch;
        /** Since when it holds {@link #pending} bytes unchanged (System.nanoTime()). */
        long since;
        long pending;

        Held(Channel ch) {
            this.ch = ch;
        }
    }

    /**
     * @param budget the bytes of unread answers held at most, across all connections
     * @param shed   counts the connections closed for it
     */
    UnreadAnswers(long budget, Counter shed) {
        this.budget = budget;
        this.shed = shed;
    }

    /** Looks every {@link #PERIOD_MS} ms from now on (answers not counted by {@link #answered}). */
    void watch(Vertx vertx) {
        vertx.setPeriodic(PERIOD_MS, id -> check());
    }

    /**
     * Counts an answer's bytes in, from its end handler (Vert.x calls it once the answer is in its
     * connection's buffer); when a quarter of the budget was written since the last look, looks
     * at once: a look queued behind the event loop's other tasks would let the answers they write
     * pile up first. Netty closes a channel's writes at once and tells its handlers later.
     */
    void answered(HttpServerResponse response) {
        if (count(response.bytesWritten())) {
            check();
        }
    }

    /** Counts a new connection in, until it closes. */
    void add(Channel ch) {
        open.put(ch, new Held(ch));
        ch.closeFuture().addListener(f -> open.remove(ch));
    }

    /** What a channel holds unwritten (its outbound buffer; none once closed). */
    private static long pending(Channel ch) {
        ChannelOutboundBuffer b = ch.unsafe().outboundBuffer();
        return b == null ? 0 : b.totalPendingWriteBytes();
    }

    /** The bytes unread now, across all open connections. */
    long pending() {
        return open.keySet().stream().mapToLong(UnreadAnswers::pending).sum();
    }

    /** Counts bytes written; true, once, when a quarter of the budget was written since the last look. */
    private boolean count(long bytes) {
        long b = Math.max(0, bytes);
        long before = written.getAndAdd(b);
        return before < budget / 4 && before + b >= budget / 4;
    }

    /** Closes connections until the unread bytes are within the budget. */
    synchronized void check() {
        written.set(0);
        long now = System.nanoTime();
        long total = 0;
        for (Held h : open.values()) {
            long p = pending(h.ch);
            if (p != h.pending) { // a new answer, or one written out: not stalled
                h.since = now;
            }
            h.pending = p;
            total += p;
        }
        if (total <= budget) {
            return;
        }
        // stalled first (false sorts first), then the most bytes first
        List<Held> holding = open.values().stream().filter(h -> h.pending > 0)
                .sorted(Comparator.comparing((Held h) -> now - h.since < STALLED_NANOS)
                        .thenComparing(Comparator.comparingLong((Held h) -> h.pending).reversed())).toList();
        for (int i = 0; i < holding.size() && total > budget; i++) {
            Held h = holding.get(i);
            total -= h.pending;
            h.pending = 0;
            open.remove(h.ch);
            h.ch.close(); // fails its writes and frees their buffers
            shed.increment();
        }
    }
}
