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

    /** @param probes the probe service; null when probing is off */
    public HttpApi(CollectionLoop loop, PrometheusRegistry registry, io.fabricd.probes.ProbeService probes) {
        this.probes = probes;
        this.loop = loop;
        this.registry = registry;
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

    private void metrics(RoutingContext ctx) {
        String accept = ctx.request().getHeader(HttpHeaders.ACCEPT);
        List<String> names = ctx.queryParam("name[]");
        ctx.vertx().executeBlocking(() -> Exposition.render(registry, accept, names), false)
                .onSuccess(rendered -> ctx.response()
                        .putHeader(HttpHeaders.CONTENT_TYPE, rendered.contentType())
                        .end(Buffer.buffer(rendered.body())))
                .onFailure(ctx::fail);
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
