package io.fabricd.agent.http;

import io.fabricd.agent.CollectionLoop;
import io.fabricd.exporters.Exposition;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.List;

/**
 * fabricd's HTTP paths (../shared/spec/interfaces.md): {@code /metrics}, {@code /healthz},
 * {@code /readyz}, {@code /api/v1/findings}, {@code /api/v1/snapshot}. Handlers only serve what the collection loop
 * published; rendering runs on a worker thread, never on the event loop.
 */
public final class HttpApi {
    private final CollectionLoop loop;
    private final PrometheusRegistry registry;
    private final io.fabricd.probes.ProbeService probes;
    private final io.fabricd.exporters.FabricMetrics fabric;

    /**
     * @param fabric the fabricd families in {@code registry}, served pre-rendered once per collection
     * @param probes the probe service; null when probing is off
     */
    public HttpApi(CollectionLoop loop, PrometheusRegistry registry, io.fabricd.exporters.FabricMetrics fabric,
                   io.fabricd.probes.ProbeService probes) {
        this.probes = probes;
        this.loop = loop;
        this.registry = registry;
        this.fabric = fabric;
    }

    public Router router(Vertx vertx) {
        Router r = Router.router(vertx);
        r.get("/metrics").handler(this::metrics);
        r.get("/healthz").handler(ctx -> text(ctx, 200, "ok\n"));
        r.get("/readyz").handler(ctx -> {
            if (loop.ready()) {
                text(ctx, 200, "ready\n");
            } else {
                text(ctx, 503, "first collection not finished\n");
            }
        });
        r.get("/api/v1/snapshot").handler(ctx -> json(ctx, CollectionLoop.Published::json));
        r.get("/api/v1/findings").handler(ctx -> json(ctx, CollectionLoop.Published::findingsJson));
        r.get(io.fabricd.probes.EndpointClient.PATH).handler(this::probeEndpoint);
        r.get("/").handler(ctx -> text(ctx, 200, "fabricd: /metrics /healthz /readyz /api/v1/findings /api/v1/snapshot\n"));
        return r;
    }

    /** The probe endpoint: only for requests authenticated with the fabric's key (others 401, counted). */
    private void probeEndpoint(RoutingContext ctx) {
        if (probes == null) {
            text(ctx, 503, "probing is off on this agent: no probe key (probe.key_file or FABRICD_PROBE_KEY)\n");
            return;
        }
        String auth = ctx.request().getHeader(io.fabricd.probes.ProbeKey.AUTH_HEADER);
        if (!probes.key().checkAuthHeader(auth, io.fabricd.probes.EndpointClient.PATH, System.currentTimeMillis() / 1000)) {
            probes.responderStats().dropped("endpoint_unauthenticated");
            text(ctx, 401, "probe endpoint requests need a valid " + io.fabricd.probes.ProbeKey.AUTH_HEADER + "\n");
            return;
        }
        ctx.vertx().executeBlocking(() -> ENDPOINT_JSON.writeValueAsBytes(probes.endpoint()), false)
                .onSuccess(json -> ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, "application/json").end(Buffer.buffer(json)))
                .onFailure(ctx::fail);
    }

    private static final com.fasterxml.jackson.databind.ObjectMapper ENDPOINT_JSON = new com.fasterxml.jackson.databind.ObjectMapper();

    private static void text(RoutingContext ctx, int status, String body) {
        ctx.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; charset=utf-8").end(body);
    }

    /**
     * How long a whole rendered scrape is served again as it is: the fabricd families change only
     * with a collection (and a new collection always renders anew), the agent's own metrics (JVM,
     * HTTP server, probes) may be this much older than the scrape.
     */
    static final long REUSE_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(1);

    private record Body(io.fabricd.exporters.FabricMetrics.Served served, long renderedAt, Exposition.Rendered rendered) {
    }

    /** The latest whole scrape per exposition format (a handful of keys: text, OpenMetrics, escapings). */
    private final java.util.concurrent.ConcurrentHashMap<String, Body> bodies = new java.util.concurrent.ConcurrentHashMap<>();

    private void metrics(RoutingContext ctx) {
        String accept = ctx.request().getHeader(HttpHeaders.ACCEPT);
        List<String> names = ctx.queryParam("name[]");
        if (names.isEmpty()) {
            String format = Exposition.formatKey(accept);
            Body b = bodies.get(format);
            if (b != null && b.served() == fabric.served() && System.nanoTime() - b.renderedAt() < REUSE_NANOS) {
                // fresh enough: no worker hop, no rendering; answered on the next turn of the event
                // loop, like the rendered answers (ending a 30 KB response inside the route handler
                // stalled some of 50 concurrent h2c-upgraded connections of Java's HttpClient until
                // the idle timeout, AgentLoadTest; the server now also refuses h2c, see Agent)
                ctx.vertx().runOnContext(v -> send(ctx, b.rendered()));
                return;
            }
            io.fabricd.exporters.FabricMetrics.Served served = fabric.served();
            // rendering the agent's own metrics takes JVM safepoints (thread states): off the event loop
            ctx.vertx().executeBlocking(() -> {
                Exposition.Rendered r = Exposition.render(registry, fabric, accept, names);
                bodies.put(format, new Body(served, System.nanoTime(), r));
                return r;
            }, false).onSuccess(r -> send(ctx, r)).onFailure(ctx::fail);
            return;
        }
        ctx.vertx().executeBlocking(() -> Exposition.render(registry, accept, names), false)
                .onSuccess(r -> send(ctx, r))
                .onFailure(ctx::fail);
    }

    private static void send(RoutingContext ctx, Exposition.Rendered r) {
        ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, r.contentType()).end(Buffer.buffer(r.body()));
    }

    /** A JSON document of the latest collection, rendered off the event loop on first request. */
    private void json(RoutingContext ctx, java.util.function.Function<CollectionLoop.Published, byte[]> doc) {
        CollectionLoop.Published p = loop.latest();
        if (p == null) {
            text(ctx, 503, "first collection not finished\n");
            return;
        }
        ctx.vertx().executeBlocking(() -> doc.apply(p), false)
                .onSuccess(json -> ctx.response()
                        .putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                        .end(Buffer.buffer(json)))
                .onFailure(ctx::fail);
    }
}
