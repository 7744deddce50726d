package io.fabricd.http;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;

/**
 * The end of a request whose body is coming and will not be used (a refusal, or a path that takes
 * no body): the answer goes out
 * with {@code Connection: close}, and the connection closes once the sender has finished its
 * body, at most {@link #MAX_MS} and {@link #MAX_BYTES} later; what it still sends meanwhile is
 * read and dropped (a web server's lingering close). Closed at once, the sender's next segments
 * would meet a closed socket, and the reset its kernel then gets can reach it before it has read
 * the answer: a client streaming a large body would see "connection reset" instead of the 413 or
 * 401 that says why. The connection holds no request slot meanwhile (its answer is written) and
 * may be closed for room like any idle one. A request that sent {@code Expect: 100-continue} waits
 * for a 100 the agent never sends, so it has sent no body: its connection closes once the answer
 * is written.
 */
public final class LingeringClose {
    /** How long a refused request's body is still taken and dropped. */
    static final long MAX_MS = 2_000;
    /** How much of a refused request's body is taken and dropped. */
    static final long MAX_BYTES = 1 << 20;

    private LingeringClose() {
    }

    /**
     * A text answer of {@code status}; when the request announced a body that is not read, the
     * connection closes after it as above, rather than the sender streaming the body into a
     * kept-alive connection until {@code http.idle_timeout}. Every refusal goes out this way, 404,
     * 405 and 503 alike, and the text answers of paths that read no body.
     */
    public static void text(HttpServerRequest req, int status, String body) {
        req.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; charset=utf-8");
        if (bodyComing(req)) {
            end(req, body);
            return;
        }
        req.response().end(body);
    }

    /** Whether {@code req} announced a body (a length above 0, or chunks) that has not arrived to its end. */
    static boolean bodyComing(HttpServerRequest req) {
        String length = req.getHeader(HttpHeaders.CONTENT_LENGTH);
        boolean announced = req.getHeader(HttpHeaders.TRANSFER_ENCODING) != null || length != null && !"0".equals(length.strip());
        return announced && !req.isEnded();
    }

    /** Ends {@code req}'s response (status and headers set) with {@code body}, then closes as above. */
    private static void end(HttpServerRequest req, String body) {
        Context context = Vertx.currentContext();
        String expect = req.getHeader(HttpHeaders.EXPECT);
        if (context == null || expect != null && expect.equalsIgnoreCase("100-continue")) {
            // no body is coming, or nothing to time the linger with: closed once the answer is written
            req.response().putHeader(HttpHeaders.CONNECTION, "close").end(body).onComplete(v -> req.connection().close());
            return;
        }
        req.response().putHeader(HttpHeaders.CONNECTION, "close").end(body);
        boolean[] closed = new boolean[1];
        long[] dropped = new long[1];
        long timer = context.owner().setTimer(MAX_MS, t -> req.connection().close());
        Runnable close = () -> {
            if (!closed[0]) {
                closed[0] = true;
                context.owner().cancelTimer(timer);
                req.connection().close();
            }
        };
        req.exceptionHandler(e -> close.run());
        req.handler(chunk -> {
            dropped[0] += chunk.length();
            if (dropped[0] > MAX_BYTES) {
                close.run();
            }
        });
        req.endHandler(v -> close.run());
        req.resume();
    }
}
