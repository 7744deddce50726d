package io.fabricd.agent.http;

import io.fabricd.agent.preflight.Answer;
import io.fabricd.agent.preflight.Preflight;
import io.fabricd.probes.peers.EndpointAuth;
import io.fabricd.probes.responder.ResponderStats;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * {@code POST /api/v1/preflight/state}, {@code /probe} and {@code /bandwidth} (docs/preflight.md):
 * authenticated as the bandwidth paths are ({@link SignedPost}: the probe key's header checked
 * before the body is read, the body the signed one, each request once), answered signed for the
 * request. The body is handed to {@link Preflight} on a worker thread, which returns at once; a
 * probe round or a bandwidth test runs on threads of its own and the answer is written when it
 * is over: the event loop and the worker pool never wait for one. Other paths go to the next handler.
 */
public final class PreflightApi {
    private static final Logger LOG = Logger.getLogger(PreflightApi.class.getName());
    static final String OFF = "preflight requests are off on this agent: no probe key (probe.key_file or FABRICD_PROBE_KEY)";

    private PreflightApi() {
    }

    /**
     * @param preflight null without a probe key
     * @param auth      null without a probe key
     * @param reads     the signed bodies on their way, shared with the bandwidth paths
     */
    public static Handler<HttpServerRequest> wrap(Handler<HttpServerRequest> next, Vertx vertx, Preflight preflight, EndpointAuth auth,
                                                  ResponderStats stats, BodyReads reads) {
        return req -> {
            String path = req.path();
            if (!Preflight.PATHS.contains(path)) {
                next.handle(req);
                return;
            }
            SignedPost.accept(req, vertx, preflight == null ? null : auth, stats, OFF, "preflight requests", reads, (r, body, nonce) -> {
                Context ctx = vertx.getOrCreateContext();
                vertx.executeBlocking(() -> preflight.answer(path, body), false)
                        .compose(pending -> Future.fromCompletionStage(pending, ctx))
                        .onSuccess((Answer a) -> SignedPost.answer(r, auth, nonce, a.status(), a.body(), a.retryAfterSeconds()))
                        .onFailure(e -> {
                            LOG.log(Level.WARNING, "preflight " + path + " failed", e);
                            if (!r.response().ended() && !r.response().closed()) {
                                SignedPost.text(r, 500, "internal error: " + e + "\n");
                            }
                        });
            });
        };
    }
}
