package io.fabricd.agent.http;

import io.fabricd.agent.Meters;
import io.fabricd.model.metrics.AgentMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.transport.Transport;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Bounds what clients can make the HTTP server hold, so that a flood of connections sheds load
 * instead of exhausting the heap (each open connection costs the JVM several KiB):
 *
 * <ul>
 *   <li>at most {@code maxConnections} open. One more closes a connection of the source address
 *       that holds the most: its oldest that never sent a request, else its oldest without a
 *       request in flight. A flood's sockets go, a scraper's (one or two connections from its
 *       address) stay, even one whose request the server has not read yet: the event loop
 *       registers a flood's accepts in batches of up to ~1 000 before it reads again, so "the
 *       oldest unread connection anywhere" would often be a scrape's (IdleConnectionFloodIT).
 *       When every connection of the heaviest source is busy, the oldest idle one anywhere goes,
 *       else the new one. Below that, {@link AcceptGuard} closes new connections at accept while
 *       four times as many are open, so that those the event loop has not handled yet are
 *       bounded too;</li>
 *   <li>at most {@code maxRequests} requests in flight (node_exporter's {@code --web.max-requests}):
 *       one beyond it gets 503 at once.</li>
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
    private final int maxConnections;
    private final int maxRequests;
    /** Open connections, oldest first. */
    private final Map<HttpConnection, Conn> open = new LinkedHashMap<>();
    /** Open connections per source address. */
    private final Map<String, Integer> perSource = new HashMap<>();
    private int inFlight;
    private final Counter shed;
    private final Counter rejected;

    /** One open connection: where from, requests in flight, requests received. */
    private static final class Conn {
        final String source;
        int inFlight;
        int served;

        Conn(String source) {
            this.source = source;
        }
    }

    /** Accepted connections beyond this many open are closed at accept (AcceptGuard). */
    static final int HARD_CAP_FACTOR = 4;
    private final AcceptGuard guard;

    public ConnectionLimits(int maxConnections, int maxRequests, MeterRegistry meters) {
        this.maxConnections = maxConnections;
        this.maxRequests = maxRequests;
        this.guard = new AcceptGuard(maxConnections * HARD_CAP_FACTOR);
        FunctionCounter.builder(Meters.name(AgentMetrics.HTTP_CONNECTIONS_REFUSED), guard, AcceptGuard::refused)
                .description(AgentMetrics.HTTP_CONNECTIONS_REFUSED.help()).register(meters);
        Gauge.builder(Meters.name(AgentMetrics.HTTP_CONNECTIONS), this, l -> l.openConnections())
                .description(AgentMetrics.HTTP_CONNECTIONS.help()).register(meters);
        shed = Counter.builder(Meters.name(AgentMetrics.HTTP_CONNECTIONS_SHED)).description(AgentMetrics.HTTP_CONNECTIONS_SHED.help())
                .register(meters);
        rejected = Counter.builder(Meters.name(AgentMetrics.HTTP_REQUESTS_REJECTED))
                .description(AgentMetrics.HTTP_REQUESTS_REJECTED.help()).register(meters);
    }

    /**
     * The Vert.x transport to build the server's Vertx with: NIO, its server socket closing new
     * connections at accept beyond four times maxConnections.
     */
    public Transport transport() {
        return guard;
    }

    /** The server's connection handler. */
    public Handler<HttpConnection> connectionHandler() {
        return this::connected;
    }

    private void connected(HttpConnection c) {
        HttpConnection victim = null;
        synchronized (this) {
            String source = c.remoteAddress() == null ? "" : String.valueOf(c.remoteAddress().hostAddress());
            open.put(c, new Conn(source));
            perSource.merge(source, 1, Integer::sum);
            if (open.size() > maxConnections) {
                victim = victim(c);
                forget(victim);
            }
        }
        c.closeHandler(v -> closed(c));
        if (victim != null) {
            shed.increment();
            victim.close();
        }
    }

    /** The connection to close for room; see the class comment. */
    private HttpConnection victim(HttpConnection newest) {
        int most = 0;
        for (int n : perSource.values()) {
            most = Math.max(most, n);
        }
        HttpConnection idle = null;
        HttpConnection idleAnywhere = null;
        for (Map.Entry<HttpConnection, Conn> e : open.entrySet()) {
            Conn s = e.getValue();
            if (e.getKey() == newest || s.inFlight > 0) {
                continue;
            }
            if (perSource.get(s.source) == most) { // one of the heaviest sources: its oldest first
                if (s.served == 0) {
                    return e.getKey();
                }
                idle = idle == null ? e.getKey() : idle;
            }
            idleAnywhere = idleAnywhere == null ? e.getKey() : idleAnywhere;
        }
        if (idle != null) {
            return idle;
        }
        return idleAnywhere != null ? idleAnywhere : newest;
    }

    /** Takes a connection out of the books (its requests out of inFlight). */
    private void forget(HttpConnection c) {
        Conn s = open.remove(c);
        if (s != null) {
            inFlight -= s.inFlight;
            perSource.computeIfPresent(s.source, (k, n) -> n == 1 ? null : n - 1);
        }
    }

    private synchronized void closed(HttpConnection c) {
        forget(c);
    }

    /**
     * Wraps the request handler: counts the request in flight on its connection until its response
     * ends or the connection closes; 503 beyond {@code maxRequests}.
     */
    public Handler<HttpServerRequest> limit(Handler<HttpServerRequest> handler) {
        return req -> {
            HttpConnection c = req.connection();
            boolean over;
            synchronized (this) {
                over = inFlight >= maxRequests;
                Conn s = open.get(c);
                if (!over && s != null) {
                    inFlight++;
                    s.inFlight++;
                    s.served++;
                }
            }
            if (over) {
                rejected.increment();
                req.response().setStatusCode(503).putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; charset=utf-8")
                        .putHeader("Retry-After", "1")
                        .end("limit of concurrent requests reached (" + maxRequests + "), try again later\n");
                return;
            }
            boolean[] done = new boolean[1];
            Handler<Void> finished = v -> finished(c, done);
            req.response().endHandler(finished);
            req.response().closeHandler(finished);
            handler.handle(req);
        };
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
        }
    }

    synchronized int openConnections() {
        return open.size();
    }

    synchronized int inFlight() {
        return inFlight;
    }
}
