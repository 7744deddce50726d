package io.fabricd.http;

import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The server's request handler over the routes it is given: the response headers asked for on
 * every answer; basic auth for {@link Route.Access#AUTHENTICATED} routes and unknown paths, decided
 * before the request takes one of the request budget ({@link BasicAuth}); the budget
 * ({@link ConnectionLimits#limit}) but for routes outside it; then the route: 405 with
 * {@code Allow} for a method it does not take, the signature checked for a signed one (before its
 * body is read: {@link SignedPost}), and its answer. A path no route has goes to {@code notFound}.
 *
 * <p>A map lookup, not vertx-web's router: a request that comes alone (a scrape every 15 s) runs
 * this code before the JIT compiles it, and the router's matching and context objects were a good
 * part of such a lone request (docs/benchmarks.md).
 */
public final class Routes {
    private final Map<String, Route> byPath = new HashMap<>();
    private final Route.Serve notFound;

    /** @param notFound answers a path no route has (it needs the password, and counts against the budget) */
    public Routes(List<Route> routes, Route.Serve notFound) {
        for (Route r : routes) {
            byPath.put(r.path(), r);
        }
        for (Route r : routes) { // "/metrics/" is "/metrics" for routes that take no body
            if (r.matches(r.path() + "/")) {
                byPath.putIfAbsent(r.path() + "/", r);
            }
        }
        this.notFound = notFound;
    }

    /** The route of {@code req}'s path; null: none. */
    Route find(HttpServerRequest req) {
        return req.path() == null ? null : byPath.get(req.path());
    }

    /**
     * The request handler.
     *
     * @param signatures how signed routes are verified; null when there are none
     * @param users      basic auth's users and their bcrypt hashes; empty: no basic auth
     * @param headers    put on every answer
     */
    public Handler<HttpServerRequest> handler(Vertx vertx, ConnectionLimits limits, Signatures signatures, Map<String, String> users,
                                              Map<String, String> headers, HttpMeters meters) {
        BodyReads reads = new BodyReads(limits.maxRequests());
        Handler<HttpServerRequest> h = limits.limit(req -> serve(req, vertx, signatures, reads), req -> {
            Route r = find(req);
            return r != null && !r.budgeted();
        });
        if (!users.isEmpty()) {
            h = new BasicAuth(vertx, users, meters).wrap(h, req -> {
                Route r = find(req);
                return r != null && r.access() != Route.Access.AUTHENTICATED;
            });
        }
        if (!headers.isEmpty()) {
            Handler<HttpServerRequest> inner = h;
            h = req -> {
                try {
                    headers.forEach((k, v) -> req.response().putHeader(k, v));
                } catch (RuntimeException e) {
                    // checked at load (the agent's ResponseHeaders); should the server refuse one anyway, an answer, never a hung request
                    req.response().setStatusCode(500).end();
                    return;
                }
                inner.handle(req);
            };
        }
        return h;
    }

    private void serve(HttpServerRequest req, Vertx vertx, Signatures signatures, BodyReads reads) {
        Route r = find(req);
        if (r == null) {
            notFound.handle(req, null);
        } else if (!r.methods().contains(req.method())) {
            req.response().putHeader(HttpHeaders.ALLOW, r.methods().stream().map(HttpMethod::name).collect(Collectors.joining(", ")));
            LingeringClose.text(req, 405, "method not allowed: " + req.method() + " ("
                    + r.methods().stream().map(HttpMethod::name).collect(Collectors.joining(" or ")) + ")\n");
        } else if (r.access() != Route.Access.SIGNED) {
            r.serve().handle(req, null);
        } else if (req.method() == HttpMethod.POST) {
            SignedPost.accept(req, vertx, signatures, r.what(), reads, r.serve());
        } else if (signatures.admit(req, r.what()) && signatures.body(req, null, r.what())) {
            r.serve().handle(req, null); // signed as a request without a body
        }
    }
}
