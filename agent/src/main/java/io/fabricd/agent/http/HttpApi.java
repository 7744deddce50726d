package io.fabricd.agent.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.agent.CollectionLoop;
import io.fabricd.exporters.Exposition;
import io.fabricd.probes.mesh.ProbeService;
import io.fabricd.probes.peers.EndpointAuth;
import io.fabricd.probes.peers.EndpointClient;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * fabricd's HTTP paths (docs/spec/interfaces.md): {@code /metrics}, {@code /healthz},
 * {@code /readyz}, {@code /api/v1/findings}, {@code /api/v1/snapshot}. Handlers only serve what the collection loop
 * published; rendering runs on a worker thread, never on the event loop.
 *
 * <p>A plain request handler that looks the path up in a switch, not vertx-web's router: seven
 * fixed paths, GET and HEAD only, need no route matching, and a request that comes alone (a scrape every
 * 15 s) runs this code before the JIT compiles it; the router's matching and context objects were
 * a good part of such a lone request (docs/benchmarks.md).
 */
public final class HttpApi {
    private static final Logger LOG = Logger.getLogger(HttpApi.class.getName());
    private static final String INDEX = "fabricd: /metrics /healthz /readyz /api/v1/findings /api/v1/snapshot "
            + EndpointClient.PATH + "\n";

    private final Vertx vertx;
    private final CollectionLoop loop;
    private final PrometheusRegistry registry;
    private final ProbeService probes;

    /**
     * @param vertx  where the blocking renderings run
     * @param probes the probe service; null when probing is off
     */
    public HttpApi(Vertx vertx, CollectionLoop loop, PrometheusRegistry registry, ProbeService probes) {
        this.vertx = vertx;
        this.probes = probes;
        this.loop = loop;
        this.registry = registry;
    }

    /** The server's request handler: GET (and HEAD) on the paths above; 405 for another method, 404 elsewhere. */
    public Handler<HttpServerRequest> handler() {
        return this::handle;
    }

    private void handle(HttpServerRequest req) {
        String path = req.path();
        if (path.length() > 1 && path.endsWith("/")) {
            path = path.substring(0, path.length() - 1); // "/metrics/" is "/metrics", as the router had it
        }
        boolean known = switch (path) {
            case "/metrics", "/healthz", "/readyz", "/api/v1/snapshot", "/api/v1/findings", "/" -> true;
            default -> path.equals(EndpointClient.PATH);
        };
        if (!known) {
            text(req, 404, "not found: " + path + "\n" + INDEX);
            return;
        }
        if (req.method() != HttpMethod.GET && req.method() != HttpMethod.HEAD) {
            // HEAD is answered as GET; Vert.x leaves the body out and keeps its length
            req.response().putHeader(HttpHeaders.ALLOW, "GET, HEAD");
            text(req, 405, "method not allowed: " + req.method() + " (GET or HEAD)\n");
            return;
        }
        switch (path) {
            case "/metrics" -> metrics(req);
            case "/healthz" -> text(req, 200, "ok\n");
            case "/readyz" -> {
                Duration stuck = loop.stuck();
                if (loop.ready()) {
                    text(req, 200, "ready\n");
                } else if (stuck != null) {
                    text(req, 503, "a collection has been running for " + stuck.toSeconds() + " s (collection.stuck_after): "
                            + "a read of the host hangs\n");
                } else {
                    text(req, 503, "first collection not finished\n");
                }
            }
            case "/api/v1/snapshot" -> json(req, CollectionLoop.Published::json);
            case "/api/v1/findings" -> json(req, CollectionLoop.Published::findingsJson);
            case "/" -> text(req, 200, INDEX);
            default -> probeEndpoint(req);
        }
    }

    /**
     * The probe endpoint: only for requests authenticated with the fabric's key for this agent's id
     * and no body, each once (others 401, counted by reason: {@link EndpointRefusal}); the answer
     * signed for the request (EndpointAuth).
     */
    private void probeEndpoint(HttpServerRequest ctx) {
        if (probes == null) {
            text(ctx, 503, "probing is off on this agent: no probe key (probe.key_file or FABRICD_PROBE_KEY)\n");
            return;
        }
        String auth = ctx.getHeader(EndpointAuth.REQUEST_HEADER);
        EndpointAuth.Verdict v = probes.endpointAuth().check(auth, ctx.method().name(), EndpointClient.PATH,
                System.currentTimeMillis() / 1000);
        if (v == EndpointAuth.Verdict.OK) {
            v = EndpointAuth.checkBody(auth, null); // signed as a request without a body
        }
        if (v != EndpointAuth.Verdict.OK) {
            EndpointRefusal.refuse(ctx, probes.endpointAuth(), probes.responderStats(), v, "probe endpoint requests");
            return;
        }
        String nonce = EndpointAuth.nonce(auth);
        vertx.executeBlocking(() -> ENDPOINT_JSON.writeValueAsBytes(probes.endpoint()), false)
                .onSuccess(json -> {
                    ctx.response().putHeader(EndpointAuth.ANSWER_HEADER, probes.endpointAuth().answerHeader(nonce, json));
                    send(ctx, "application/json", Buffer.buffer(json), false);
                })
                .onFailure(e -> fail(ctx, e));
    }

    private static final ObjectMapper ENDPOINT_JSON = new ObjectMapper();

    private static void text(HttpServerRequest ctx, int status, String body) {
        ctx.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; charset=utf-8").end(body);
    }

    private void metrics(HttpServerRequest ctx) {
        String accept = ctx.getHeader(HttpHeaders.ACCEPT);
        List<String> names;
        try {
            names = ctx.query() == null ? List.of() : ctx.params().getAll("name[]");
        } catch (IllegalArgumentException e) { // a bad %xx escape
            text(ctx, 400, "bad query: " + e.getMessage() + "\n");
            return;
        }
        boolean gzip = acceptsGzip(ctx.getHeader(HttpHeaders.ACCEPT_ENCODING));
        // rendered on each scrape, so the agent's own metrics (fabric_agent_ready, the running
        // collection's age) are as of the scrape; off the event loop: the JVM metrics take safepoints
        vertx.executeBlocking(() -> Exposition.render(registry, accept, names, gzip, Body::of), false)
                .onSuccess(r -> send(ctx, r.contentType(), r.bytes(), gzip))
                .onFailure(e -> fail(ctx, e));
    }

    /** A body copied out of the buffer it was rendered into (Exposition reuses it). */
    private record Body(String contentType, Buffer bytes) {
        static Body of(String contentType, byte[] bytes, int length) {
            return new Body(contentType, Buffer.buffer(length).appendBytes(bytes, 0, length));
        }
    }

    /** A rendering that failed: 500 with the reason, logged (the connection stays usable). */
    private static void fail(HttpServerRequest ctx, Throwable e) {
        LOG.log(Level.WARNING, "HTTP " + ctx.path() + " failed", e);
        if (!ctx.response().ended() && !ctx.response().closed()) {
            text(ctx, 500, "internal error: " + e + "\n");
        }
    }

    /**
     * @param gzip the body is gzip-compressed already (the server has no compressor of its own,
     *             see Agent): labelled so
     */
    private static void send(HttpServerRequest ctx, String contentType, Buffer body, boolean gzip) {
        if (ctx.response().closed()) {
            return; // the client hung up while the body was rendered off the event loop
        }
        if (gzip) {
            ctx.response().putHeader(HttpHeaders.CONTENT_ENCODING, "gzip").putHeader(HttpHeaders.VARY, "Accept-Encoding");
        }
        ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, contentType).end(body);
    }

    /** Whether an Accept-Encoding header accepts gzip (not with q=0). */
    static boolean acceptsGzip(String acceptEncoding) {
        if (acceptEncoding == null) {
            return false;
        }
        for (String part : acceptEncoding.split(",")) {
            String[] p = part.split(";");
            if (p.length == 0 || !p[0].trim().equalsIgnoreCase("gzip")) { // ";" alone splits to nothing
                continue;
            }
            for (int i = 1; i < p.length; i++) {
                String q = p[i].trim().replace(" ", "");
                if (q.startsWith("q=") || q.startsWith("Q=")) {
                    try {
                        return Double.parseDouble(q.substring(2)) > 0;
                    } catch (NumberFormatException e) {
                        return false;
                    }
                }
            }
            return true;
        }
        return false;
    }

    /** A JSON document of the latest collection, rendered off the event loop on first request. */
    private void json(HttpServerRequest ctx, Function<CollectionLoop.Published, byte[]> doc) {
        CollectionLoop.Published p = loop.latest();
        if (p == null) {
            text(ctx, 503, "first collection not finished\n");
            return;
        }
        boolean gzip = acceptsGzip(ctx.getHeader(HttpHeaders.ACCEPT_ENCODING));
        vertx.executeBlocking(() -> gzip ? Exposition.gzip("application/json", doc.apply(p), Body::of)
                        : new Body("application/json", Buffer.buffer(doc.apply(p))), false)
                .onSuccess(r -> send(ctx, r.contentType(), r.bytes(), gzip))
                .onFailure(e -> fail(ctx, e));
    }
}
