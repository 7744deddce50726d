package io.fabricd.agent.http;

import io.fabricd.exporters.Exposition;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Whole {@code /metrics} bodies, one per exposition format: fabricd's families (pre-rendered once
 * per collection) joined with the agent's own metrics (JVM, process, HTTP server, probes), and
 * gzip-compressed for a scraper that asks for it (Prometheus does): compressed once per body, off
 * the event loop, instead of by the HTTP server on every response.
 *
 * <p>A body is made in one of two ways. <b>Ahead</b>: right after a collection, on the collection
 * thread, for a format whose scraper is expected back before the next collection — so a scrape that
 * comes alone (Prometheus's, every 15 s) finds its body ready and costs only the HTTP exchange. Rendering the
 * agent's own metrics costs 1.3-1.9 ms of code a scrape every 15 s leaves uncompiled
 * (docs/benchmarks.md, lone scrapes). The next scrape is predicted from the last two requests for
 * that format ({@code last + gap}); a format nobody asked for, or whose scraper stopped coming, is
 * not rendered, so a body is rendered ahead at most about once per scrape whatever the scrape and
 * collection intervals. <b>On request</b>, on a worker thread, when no fit body is there (the first
 * scrape, a scrape the prediction missed): reused for {@link #REUSE_NANOS} by the scrapes that follow.
 *
 * <p>A body is served only while its collection is the one published: the fabricd families are
 * never older than the latest collection; the agent's own metrics are as of the body's rendering
 * (ahead: the end of the latest collection, at most one interval before the scrape).
 */
final class ScrapeBodies {
    /** How long a body rendered on request is served again as it is (bursts, several scrapers at once). */
    static final long REUSE_NANOS = TimeUnit.SECONDS.toNanos(1);

    private record Body(Object collection, long renderedAt, boolean ahead, Exposition.Rendered rendered) {
    }

    /**
     * The latest request for a format: its Accept header (any one that selects the format), whether
     * it asked for gzip, when it came, and the gap before it.
     */
    private record Demand(String accept, boolean gzip, long last, long gap) {
    }

    /** Renders a whole body for an Accept header, gzip-compressed or not. */
    interface Renderer {
        Exposition.Rendered render(String accept, boolean gzip);
    }

    private final Supplier<Object> collection;
    private final Renderer render;
    private final long intervalNanos;
    private final LongSupplier clock;
    private final ConcurrentHashMap<String, Body> bodies = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Demand> demand = new ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicLong renderedAhead = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong renderedOnRequest = new java.util.concurrent.atomic.AtomicLong();

    /** Bodies rendered ahead of an expected scrape so far (fabric_agent_scrape_bodies_rendered_total{when="ahead"}). */
    long renderedAhead() {
        return renderedAhead.get();
    }

    /** Bodies rendered on request so far ({when="on_request"}). */
    long renderedOnRequest() {
        return renderedOnRequest.get();
    }

    /**
     * @param collection    the published collection's identity (compared by reference)
     * @param render        renders a whole body
     * @param intervalNanos the collection interval
     * @param clock         nanoTime
     */
    ScrapeBodies(Supplier<Object> collection, Renderer render, long intervalNanos,
                 LongSupplier clock) {
        this.collection = collection;
        this.render = render;
        this.intervalNanos = intervalNanos;
        this.clock = clock;
    }

    /**
     * A scrape for {@code format} (a key for the exposition format and the encoding; one key, one
     * kind of body): records it (for the prediction) and answers the body fit to serve now, or null
     * when it must be rendered ({@link #renderNow}).
     */
    Exposition.Rendered request(String format, String accept, boolean gzip) {
        long now = clock.getAsLong();
        demand.compute(format, (k, d) -> new Demand(accept, gzip, now, d == null ? Long.MAX_VALUE : now - d.last()));
        Body b = bodies.get(format);
        if (b != null && b.collection() == collection.get() && (b.ahead() || now - b.renderedAt() < REUSE_NANOS)) {
            return b.rendered();
        }
        return null;
    }

    /** Renders {@code format}'s body now (on request; a worker thread) and keeps it for reuse. */
    Exposition.Rendered renderNow(String format, String accept, boolean gzip) {
        Object c = collection.get();
        Exposition.Rendered r = render.render(accept, gzip);
        bodies.put(format, new Body(c, clock.getAsLong(), false, r));
        renderedOnRequest.incrementAndGet();
        return r;
    }

    /**
     * After a collection was published (the collection thread): renders the body of each format
     * whose next scrape is expected before the next collection. Returns how many it rendered.
     */
    int afterCollection() {
        int n = 0;
        for (var e : demand.entrySet()) {
            Demand d = e.getValue();
            long now = clock.getAsLong();
            if (d.gap() == Long.MAX_VALUE) {
                continue; // asked once: no rhythm to predict from
            }
            long untilNext = d.last() + d.gap() - now;
            // expected before the next collection, and not more than one gap overdue (a scraper
            // that stopped coming, a burst of scrapes that ended)
            if (untilNext < intervalNanos && untilNext >= -d.gap()) {
                Object c = collection.get();
                bodies.put(e.getKey(), new Body(c, clock.getAsLong(), true, render.render(d.accept(), d.gzip())));
                n++;
                renderedAhead.incrementAndGet();
            } else if (untilNext < -d.gap()) {
                demand.remove(e.getKey(), d);
                bodies.remove(e.getKey());
            }
        }
        return n;
    }
}
