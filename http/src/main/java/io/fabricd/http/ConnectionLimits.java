package io.fabricd.http;

import io.micrometer.core.instrument.Counter;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.transport.Transport;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.function.Predicate;
import java.util.logging.Logger;

/**
 * Bounds what clients can make the HTTP server hold, so that a flood of connections, from however
 * many source addresses, sheds load instead of exhausting the heap ({@link HeapBudget}):
 *
 * <ul>
 *   <li>at most {@code maxConnections} open (by default, and at most, what the heap allows). One
 *       more closes, in this order: a connection that was used and got nothing but refusals (a
 *       status of 400 or more) and health checks, idle longest first (a flood that keeps sending
 *       requests it is refused looks recently used, but never gets ahead of a client that is
 *       served); else a connection that never sent a request, from a source not answered
 *       recently ({@link KnownSources}), the oldest of the source holding the most such
 *       ({@link FreshConnections}: a flood's go, a new scraper's one unread connection stays, even
 *       while the event loop registers a flood's accepts in batches of ~1 000 before it reads
 *       again); else a never-used one of a known source (a scraper's or the kubelet's new
 *       connection whose request is not read yet), the oldest; else the connection idle longest
 *       among those that were served (a kept-alive scraper's, just used, is the last of them to
 *       go); else the new one. A connection with a request in flight is never closed for room.
 *       Below that, {@link AcceptGuard} closes new connections at accept beyond an absolute cap,
 *       so that those the event loop has not handled yet are bounded too;</li>
 *   <li>at most {@code maxRequests} requests in flight (node_exporter's {@code --web.max-requests}):
 *       one beyond it gets 503 at once. Routes outside the budget (the agent's {@code GET /healthz}
 *       and {@code /readyz}) are not counted: answered at once on the event loop, they hold nothing, and a client holding every
 *       request slot cannot make the kubelet restart the agent;</li>
 *   <li>at most a quarter of the heap of answers written and not read by their clients yet
 *       (a request's slot is free once its answer is written): {@link UnreadAnswers}.</li>
 * </ul>
 *
 * Needs a server with h2c off (the agent's): with h2c on, Vert.x makes the connection, and calls
 * the connection handler, only once the first request shows the protocol, so idle sockets would go
 * uncounted.
 *
 * <p>Called on the server's event loop only (the agent runs one); the methods are synchronized all
 * the same should the server ever get more event loops.
 */
public final class ConnectionLimits {
    private static final Logger LOG = Logger.getLogger(ConnectionLimits.class.getName());
    private final int maxConnections;
    private final int maxRequests;
    /** Every open connection. */
    private final Map<HttpConnection, Conn> open = new HashMap<>();
    /** Used, nothing in flight, never answered below 400 but health checks; idle longest first: closed for room first. */
    private final LinkedHashSet<HttpConnection> refused = new LinkedHashSet<>();
    /** Never used, of sources not answered recently: closed for room next, then freshKnown, then idle. */
    private final FreshConnections<HttpConnection> fresh = new FreshConnections<>();
    /** Answered below 400 (a request other than a health check), nothing in flight; idle longest first. */
    private final LinkedHashSet<HttpConnection> idle = new LinkedHashSet<>();
    /** Never used, of known sources, oldest first. */
    private final LinkedHashSet<HttpConnection> freshKnown = new LinkedHashSet<>();
    private int inFlight;
    private final Counter shed;
    private final Counter rejected;
    private final KnownSources known = new KnownSources();
    private final AcceptGuard guard;
    private final UnreadAnswers unread;

    /**
     * One open connection: where from, requests in flight, requests received, whether one of them
     * (not a health check) was answered below 400.
     */
    private static final class Conn {
        final String source;
        final boolean known;
        int inFlight;
        int served;
        boolean answered;

        Conn(String source, boolean known) {
            this.source = source;
            this.known = known;
        }
    }

    /**
     * @param maxConnections 0: what the heap allows; more than that: capped to it, with a warning
     * @param headBytes      the largest request head a connection may send (headers and request
     *                       line): the heap a connection may hold grows with it
     * @param unreadBudget   the bytes of answers clients leave unread held at most; 0: what the heap
     *                       allows ({@link HeapBudget#unreadBytes(long)}). Tests lower it.
     */
    public ConnectionLimits(int maxConnections, int maxRequests, int headBytes, long unreadBudget, HttpMeters meters) {
        long heap = Runtime.getRuntime().maxMemory();
        int allowed = HeapBudget.maxConnections(heap, headBytes);
        if (maxConnections > allowed) {
            LOG.warning("http.max_connections " + maxConnections + " is more than a " + (heap >> 20) + " MiB heap holds at "
                    + (HeapBudget.connectionBytes(headBytes) >> 10) + " KiB a connection: " + allowed
                    + " (raise -Xmx, or lower max_header_bytes and max_request_line_bytes, for more)");
        }
        this.maxConnections = maxConnections <= 0 ? allowed : Math.min(maxConnections, allowed);
        this.maxRequests = maxRequests;
        int cap = HeapBudget.acceptCap(heap, this.maxConnections);
        shed = meters.counter(HttpMeters.Kind.CONNECTIONS_SHED);
        this.unread = new UnreadAnswers(unreadBudget > 0 ? unreadBudget : HeapBudget.unreadBytes(heap), shed);
        this.guard = new AcceptGuard(HeapBudget.heavySourceCap(this.maxConnections, cap), cap, known, unread);
        meters.counter(HttpMeters.Kind.CONNECTIONS_REFUSED, guard, AcceptGuard::refused);
        meters.gauge(HttpMeters.Kind.CONNECTIONS, this, ConnectionLimits::openConnections);
        rejected = meters.counter(HttpMeters.Kind.REQUESTS_REJECTED);
    }

    /** The connections kept open at most: the configured limit, or what the heap allows. */
    public int maxConnections() {
        return maxConnections;
    }

    /** The requests in flight at most. */
    public int maxRequests() {
        return maxRequests;
    }

    /**
     * The Vert.x transport to build the server's Vertx with: NIO, its server socket closing new
     * connections at accept beyond the absolute cap.
     */
    public Transport transport() {
        return guard;
    }

    /** Keeps the answers clients leave unread within their budget ({@link UnreadAnswers}), shedding connections. */
    public void watchUnread(Vertx vertx) {
        unread.watch(vertx);
    }

    /** The bytes of answers written and not read by their clients yet, across all connections. */
    public long unreadBytes() {
        return unread.pending();
    }

    /** The server's connection handler. */
    public Handler<HttpConnection> connectionHandler() {
        return this::connected;
    }

    private void connected(HttpConnection c) {
        HttpConnection victim = null;
        synchronized (this) {
            String source = c.remoteAddress() == null ? "" : String.valueOf(c.remoteAddress().hostAddress());
            Conn s = new Conn(source, known.known(source));
            if (open.size() >= maxConnections) { // chosen among the others: the new one only when none of them may go
                victim = victim(c);
            }
            open.put(c, s);
            if (s.known) {
                freshKnown.add(c);
            } else {
                fresh.add(c, source);
            }
            if (victim != null) {
                forget(victim);
            }
        }
        c.closeHandler(v -> closed(c));
        if (victim != null) {
            shed.increment();
            victim.close();
        }
    }

    /** The connection to close for room, {@code newest} not counted in yet; see the class comment. */
    private HttpConnection victim(HttpConnection newest) {
        HttpConnection v = refused.isEmpty() ? fresh.first() : refused.iterator().next();
        if (v == null) {
            v = !freshKnown.isEmpty() ? freshKnown.iterator().next() : !idle.isEmpty() ? idle.iterator().next() : newest;
        }
        return v;
    }

    /** Takes a connection out of the shedding order: a request came, or it closed. */
    private void unqueue(HttpConnection c, Conn s) {
        if (!idle.remove(c) && !refused.remove(c) && !freshKnown.remove(c)) {
            fresh.remove(c, s.source);
        }
    }

    /** Takes a connection out of the books (its requests out of inFlight). */
    private void forget(HttpConnection c) {
        Conn s = open.remove(c);
        if (s != null) {
            inFlight -= s.inFlight;
            unqueue(c, s);
        }
    }

    private synchronized void closed(HttpConnection c) {
        forget(c);
    }

    /**
     * Wraps the request handler: counts the request in flight on its connection until its response
     * ends or the connection closes; 503 beyond {@code maxRequests}. Requests {@code outside} the
     * budget (health checks) are not counted.
     */
    public Handler<HttpServerRequest> limit(Handler<HttpServerRequest> handler, Predicate<HttpServerRequest> outside) {
        return req -> {
            HttpConnection c = req.connection();
            if (outside.test(req)) {
                synchronized (this) {
                    Conn s = open.get(c);
                    if (s != null && s.inFlight == 0) { // used: to the back of its idle ones
                        unqueue(c, s);
                        s.served++;
                        (s.answered ? idle : refused).add(c);
                    }
                }
                req.response().endHandler(v -> {
                    answered(c, req, true);
                    unread.answered(req.response());
                });
                handler.handle(req);
                return;
            }
            boolean over;
            synchronized (this) {
                over = inFlight >= maxRequests;
                Conn s = open.get(c);
                if (!over && s != null) {
                    unqueue(c, s);
                    inFlight++;
                    s.inFlight++;
                    s.served++;
                }
            }
            if (over) {
                rejected.increment();
                req.response().putHeader(HttpHeaders.RETRY_AFTER, "1");
                LingeringClose.text(req, 503, "limit of concurrent requests reached (" + maxRequests + "), try again later\n");
                return;
            }
            boolean[] done = new boolean[1];
            req.response().endHandler(v -> {
                answered(c, req, false);
                finished(c, done);
                unread.answered(req.response());
            });
            req.response().closeHandler(v -> finished(c, done));
            handler.handle(req);
        };
    }

    /**
     * Remembers the source of a request answered below 400 ({@link KnownSources}), and, but for a
     * health check, that its connection was served.
     */
    private void answered(HttpConnection c, HttpServerRequest req, boolean health) {
        if (req.response().getStatusCode() >= 400) {
            return;
        }
        if (c.remoteAddress() != null) {
            known.answered(String.valueOf(c.remoteAddress().hostAddress()));
        }
        if (!health) {
            synchronized (this) {
                Conn s = open.get(c);
                if (s != null) {
                    s.answered = true;
                }
            }
        }
    }

    private synchronized void finished(HttpConnection c, boolean[] done) {
        if (done[0]) {
            return;
        }
        done[0] = true;
        Conn s = open.get(c);
        if (s != null && s.inFlight > 0) { // else the connection was closed first and took its requests along
            s.inFlight--;
            inFlight--;
            if (s.inFlight == 0) {
                (s.answered ? idle : refused).add(c);
            }
        }
    }

    synchronized int openConnections() {
        return open.size();
    }

    synchronized int inFlight() {
        return inFlight;
    }
}
