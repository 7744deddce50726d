package io.fabricd.agent.http;

import io.fabricd.agent.preflight.Preflight;
import io.fabricd.http.Route;
import io.fabricd.http.Signatures;
import io.vertx.core.Vertx;
import java.util.List;

/**
 * {@code POST /api/v1/preflight/state}, {@code /probe} and {@code /bandwidth} (docs/preflight.md):
 * authenticated as the bandwidth paths are (signed routes: the probe key's header checked
 * before the body is read, the body the signed one, each request once), answered signed for the
 * request. The body is handed to {@link Preflight} on a worker thread, which returns at once; a
 * probe round or a bandwidth test runs on threads of its own and the answer is written when it
 * is over: the event loop and the worker pool never wait for one.
 */
public final class PreflightApi {
    static final String OFF = "preflight requests are off on this agent: no probe key (probe.key_file or FABRICD_PROBE_KEY)";

    private PreflightApi() {
    }

    /**
     * @param preflight  null without a probe key
     * @param signatures null without a probe key: then the paths answer 503 to anyone
     */
    public static List<Route> routes(Vertx vertx, Preflight preflight, Signatures signatures) {
        return HttpApi.signedPosts(vertx, Preflight.PATHS, "preflight requests", signatures, preflight == null ? OFF : null,
                (path, body) -> preflight.answer(path, body));
    }
}
