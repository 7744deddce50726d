package io.fabricd.http;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import java.util.function.Consumer;

/**
 * The front of the POST routes signed for this server ({@link Route.Access#SIGNED}): a declared
 * body over {@link #MAX_BODY} (413), then the signature header ({@link Signatures#admit}), checked
 * before any of the body is read: a request that fails is refused at once and its body is never
 * read, so unauthenticated senders hold no request slot. An authenticated body is read when its
 * source and the server have room for one more on its way ({@link BodyReads}: else 429), up to
 * {@link #MAX_BODY} within {@link #BODY_DEADLINE_MS} (else the connection is closed), and must be
 * the one the header signs; then it goes to the route, which answers with {@link #answer} (200
 * signed for the request).
 */
public final class SignedPost {
    static final int MAX_BODY = 64 * 1024;
    /** How long an authenticated request's body may take to arrive. */
    static final long BODY_DEADLINE_MS = 10_000;

    private SignedPost() {
    }

    /**
     * @param what  the requests in the refusals' words ("bandwidth requests")
     * @param reads the bodies on their way, shared by every signed route
     */
    static void accept(HttpServerRequest req, Vertx vertx, Signatures signatures, String what, BodyReads reads, Route.Serve then) {
        String declared = req.getHeader(HttpHeaders.CONTENT_LENGTH);
        if (declared != null && !declared.matches("\\d{1,9}") || declared != null && Integer.parseInt(declared) > MAX_BODY) {
            LingeringClose.text(req, 413, "a " + what.replaceFirst("s$", "") + " is at most " + MAX_BODY + " bytes\n");
            return;
        }
        if (!signatures.admit(req, what)) {
            return; // the body unread
        }
        String source = BcryptGate.source(req.remoteAddress());
        String busy = reads.enter(source);
        if (busy != null) {
            req.response().putHeader(HttpHeaders.RETRY_AFTER, "1");
            LingeringClose.text(req, 429, busy + "\n");
            return;
        }
        read(req, vertx, () -> reads.done(source), body -> {
            if (signatures.body(req, body, what)) {
                then.handle(req, body);
            }
        });
    }

    /**
     * Reads an authenticated request's body, at most {@link #MAX_BODY} within {@link #BODY_DEADLINE_MS},
     * then {@code then}; {@code done} once, when the body has arrived, was cut, or the connection closed.
     */
    private static void read(HttpServerRequest req, Vertx vertx, Runnable done, Consumer<byte[]> then) {
        Buffer body = Buffer.buffer();
        boolean[] over = new boolean[1];
        boolean[] counted = {true};
        long[] timer = new long[1];
        Runnable leave = () -> {
            vertx.cancelTimer(timer[0]);
            if (counted[0]) {
                counted[0] = false;
                done.run();
            }
        };
        Runnable cut = () -> {
            over[0] = true;
            leave.run();
            req.connection().close();
        };
        timer[0] = vertx.setTimer(BODY_DEADLINE_MS, t -> cut.run());
        req.exceptionHandler(e -> leave.run()); // the connection closed before the body's end among them
        req.handler(chunk -> {
            if (over[0]) {
                return;
            }
            if (body.length() + chunk.length() > MAX_BODY) {
                cut.run();
                return;
            }
            body.appendBuffer(chunk);
        });
        req.endHandler(v -> {
            leave.run();
            if (!over[0]) {
                then.accept(body.getBytes());
            }
        });
    }

    /**
     * The answer: a 200 as JSON, signed for the request; anything else as one line of text, with
     * {@code Retry-After} when {@code retryAfterSeconds} is over 0. Nothing when the client has gone.
     */
    public static void answer(HttpServerRequest req, Signatures signatures, int status, byte[] body, long retryAfterSeconds) {
        if (req.response().ended() || req.response().closed()) {
            return;
        }
        if (status == 200) {
            signatures.sign(req, body);
            req.response().putHeader(HttpHeaders.CONTENT_TYPE, "application/json").end(Buffer.buffer(body));
            return;
        }
        if (retryAfterSeconds > 0) {
            req.response().putHeader(HttpHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds));
        }
        req.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; charset=utf-8").end(Buffer.buffer(body));
    }
}
