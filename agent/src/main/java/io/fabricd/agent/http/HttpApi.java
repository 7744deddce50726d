package io.fabricd.agent.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.agent.loop.CollectionLoop;
import io.fabricd.agent.preflight.Answer;
import io.fabricd.exporters.Exposition;
import io.fabricd.http.LingeringClose;
import io.fabricd.http.Route;
import io.fabricd.http.Route.Access;
import io.fabricd.http.Signatures;
import io.fabricd.http.SignedPost;
import io.fabricd.probes.mesh.ProbeService;
import io.fabricd.probes.peers.EndpointClient;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * fabricd's HTTP paths (docs/spec/interfaces.md): {@code /metrics}, {@code /healthz},
 * {@code /readyz}, {@code /api/v1/findings}, {@code /api/v1/snapshot}. Handlers only serve what the collection loop
 * published; rendering runs on a worker thread, never on the event loop. None of these paths reads
 * a body: a text answer does not wait for one announced ({@link LingeringClose}).
 *
 * <p>Routes of the agent's HTTP server (the http module's {@code Routes}), which bounds and
 * authenticates the requests before they come here.
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

    /**
     * The routes: GET (and HEAD) on the paths above; {@code /healthz} and {@code /readyz} open and
     * outside the request budget (the kubelet's checks, answered at once); the probe endpoint signed
     * ({@code signatures}, null when probing is off: then open, answering 503).
     */
    public List<Route> routes(Signatures signatures) {
        Route endpoint = new Route(List.of(HttpMethod.GET, HttpMethod.HEAD), EndpointClient.PATH, Access.SIGNED, true,
                "probe endpoint requests", (req, b) -> probeEndpoint(req, signatures));
        return List.of(Route.get("/metrics", Access.AUTHENTICATED, (req, b) -> metrics(req)),
                Route.get("/healthz", Access.OPEN, (req, b) -> LingeringClose.text(req, 200, "ok\n")).outsideBudget(),
                Route.get("/readyz", Access.OPEN, (req, b) -> ready(req)).outsideBudget(),
                Route.get("/api/v1/snapshot", Access.AUTHENTICATED, (req, b) -> json(req, CollectionLoop.Published::json)),
                Route.get("/api/v1/findings", Access.AUTHENTICATED, (req, b) -> json(req, CollectionLoop.Published::findingsJson)),
                Route.get("/", Access.AUTHENTICATED, (req, b) -> LingeringClose.text(req, 200, INDEX)),
                probes != null ? endpoint : endpoint.off("probing is off on this agent: no probe key (probe.key_file or FABRICD_PROBE_KEY)"));
    }

    /**
     * Signed POST routes of {@code paths}: {@code answer} runs on a worker thread and may complete
     * later ({@link PreflightApi}), signed for the request; with {@code off} set, 503 with it to anyone.
     */
    static List<Route> signedPosts(Vertx vertx, List<String> paths, String what, Signatures signatures, String off,
                                   BiFunction<String, byte[], CompletableFuture<Answer>> answer) {
        return paths.stream().map(path -> {
            Route r = Route.signedPost(path, what, (req, body) -> {
                Context ctx = vertx.getOrCreateContext();
                vertx.executeBlocking(() -> answer.apply(path, body), false)
                        .compose(pending -> Future.fromCompletionStage(pending, ctx))
                        .onSuccess(a -> SignedPost.answer(req, signatures, a.status(), a.body(), a.retryAfterSeconds()))
                        .onFailure(e -> fail(req, e));
            });
            return off == null ? r : r.off(off);
        }).toList();
    }

    /** A path no route has. */
    public static void notFound(HttpServerRequest req, byte[] body) {
        LingeringClose.text(req, 404, "not found: " + req.path() + "\n" + INDEX);
    }

    private void ready(HttpServerRequest req) {
        Duration stuck = loop.stuck();
        if (loop.ready()) {
            LingeringClose.text(req, 200, "ready\n");
        } else if (stuck != null) {
            LingeringClose.text(req, 503, "a collection has been running for " + stuck.toSeconds() + " s (collection.stuck_after): "
                    + "a read of the host hangs\n");
        } else {
            LingeringClose.text(req, 503, "first collection not finished\n");
        }
    }

    /** The probe endpoint, to a request signed with the fabric's key for this agent and no body; the answer signed for it. */
    private void probeEndpoint(HttpServerRequest ctx, Signatures signatures) {
        vertx.executeBlocking(() -> ENDPOINT_JSON.writeValueAsBytes(probes.endpoint()), false)
                .onSuccess(json -> {
                    signatures.sign(ctx, json);
                    send(ctx, "application/json", Buffer.buffer(json), false);
                })
                .onFailure(e -> fail(ctx, e));
    }

    private static final ObjectMapper ENDPOINT_JSON = new ObjectMapper();

    private void metrics(HttpServerRequest ctx) {
        String accept = ctx.getHeader(HttpHeaders.ACCEPT);
        List<String> names;
        try {
            names = ctx.query() == null ? List.of() : ctx.params().getAll("name[]");
        } catch (IllegalArgumentException e) { // a bad %xx escape
            LingeringClose.text(ctx, 400, "bad query: " + e.getMessage() + "\n");
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

    /** A rendering or an answer that failed: 500 with the reason, logged (the connection stays usable). */
    static void fail(HttpServerRequest ctx, Throwable e) {
        LOG.log(Level.WARNING, "HTTP " + ctx.path() + " failed", e);
        if (!ctx.response().ended() && !ctx.response().closed()) {
            LingeringClose.text(ctx, 500, "internal error: " + e + "\n");
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
            LingeringClose.text(ctx, 503, "first collection not finished\n");
            return;
        }
        boolean gzip = acceptsGzip(ctx.getHeader(HttpHeaders.ACCEPT_ENCODING));
        vertx.executeBlocking(() -> gzip ? Exposition.gzip("application/json", doc.apply(p), Body::of)
                        : new Body("application/json", Buffer.buffer(doc.apply(p))), false)
                .onSuccess(r -> send(ctx, r.contentType(), r.bytes(), gzip))
                .onFailure(e -> fail(ctx, e));
    }
}
