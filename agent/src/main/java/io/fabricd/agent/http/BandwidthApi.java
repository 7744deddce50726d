package io.fabricd.agent.http;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.probes.bandwidth.BandwidthMessages;
import io.fabricd.probes.bandwidth.BandwidthServer;
import io.fabricd.probes.peers.EndpointAuth;
import io.fabricd.probes.responder.ResponderStats;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * {@code POST /api/v1/bandwidth/start}, {@code /go} and {@code /stop} (docs/bandwidth.md): requests signed with
 * the probe key for this agent ({@link EndpointAuth}), each once; answers signed for the request.
 * The header is checked before any body is read: a request that fails gets 401 at once and its body
 * is never read, so unauthenticated senders hold no request slot. An authenticated body is read up
 * to 64 KiB within {@link #BODY_DEADLINE_MS} (else the connection is closed) and must be the one the
 * header signs; its fields are checked (400, one line) before the queue pairs are set up off the
 * event loop. Other paths go to the next handler.
 */
public final class BandwidthApi {
    private static final Logger LOG = Logger.getLogger(BandwidthApi.class.getName());
    static final int MAX_BODY = 64 * 1024;
    /** How long an authenticated request's body may take to arrive. */
    static final long BODY_DEADLINE_MS = 10_000;
    private static final ObjectMapper JSON = new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private BandwidthApi() {
    }

    /**
     * @param server null when this agent serves no bandwidth tests (bandwidth.serve off, a snapshot, no verbs)
     * @param auth   null without a probe key
     * @param why    what to answer when there is no server (to requests that pass the key, when there is one)
     */
    public static Handler<HttpServerRequest> wrap(Handler<HttpServerRequest> next, Vertx vertx, BandwidthServer server,
                                                  EndpointAuth auth, ResponderStats stats, String why) {
        return req -> {
            String path = req.path();
            if (!path.equals(BandwidthMessages.START_PATH) && !path.equals(BandwidthMessages.GO_PATH)
                    && !path.equals(BandwidthMessages.STOP_PATH)) {
                next.handle(req);
                return;
            }
            if (req.method() != HttpMethod.POST) {
                req.response().putHeader(HttpHeaders.ALLOW, "POST");
                text(req, 405, "method not allowed: " + req.method() + " (POST)\n");
                return;
            }
            if (auth == null) {
                text(req, 503, why + "\n");
                return;
            }
            String declared = req.getHeader(HttpHeaders.CONTENT_LENGTH);
            if (declared != null && !declared.matches("\\d{1,9}") || declared != null && Integer.parseInt(declared) > MAX_BODY) {
                text(req, 413, "a bandwidth request is at most " + MAX_BODY + " bytes\n");
                return;
            }
            String header = req.getHeader(EndpointAuth.REQUEST_HEADER);
            EndpointAuth.Verdict v = auth.check(header, "POST", path, System.currentTimeMillis() / 1000);
            if (v != EndpointAuth.Verdict.OK) {
                EndpointRefusal.refuse(req, auth, stats, v, "bandwidth requests"); // the body unread
                return;
            }
            read(req, vertx, body -> {
                EndpointAuth.Verdict b = EndpointAuth.checkBody(header, body);
                if (b != EndpointAuth.Verdict.OK) {
                    EndpointRefusal.refuse(req, auth, stats, b, "bandwidth requests");
                    return;
                }
                handle(req, body, vertx, server, auth, why);
            });
        };
    }

    /** Reads an authenticated request's body, at most {@link #MAX_BODY} within {@link #BODY_DEADLINE_MS}, then {@code then}. */
    private static void read(HttpServerRequest req, Vertx vertx, Consumer<byte[]> then) {
        Buffer body = Buffer.buffer();
        boolean[] over = new boolean[1];
        long timer = vertx.setTimer(BODY_DEADLINE_MS, t -> {
            over[0] = true;
            req.connection().close();
        });
        req.exceptionHandler(e -> vertx.cancelTimer(timer));
        req.handler(chunk -> {
            if (over[0]) {
                return;
            }
            if (body.length() + chunk.length() > MAX_BODY) {
                over[0] = true;
                vertx.cancelTimer(timer);
                req.connection().close();
                return;
            }
            body.appendBuffer(chunk);
        });
        req.endHandler(v -> {
            vertx.cancelTimer(timer);
            if (!over[0]) {
                then.accept(body.getBytes());
            }
        });
    }

    private static void handle(HttpServerRequest req, byte[] body, Vertx vertx, BandwidthServer server, EndpointAuth auth, String why) {
        String nonce = EndpointAuth.nonce(req.getHeader(EndpointAuth.REQUEST_HEADER));
        String path = req.path();
        vertx.executeBlocking(() -> answer(path, body, server, why), false).onSuccess(a -> {
            if (a.status() == 200) {
                req.response().putHeader(EndpointAuth.ANSWER_HEADER, auth.answerHeader(nonce, a.body()))
                        .putHeader(HttpHeaders.CONTENT_TYPE, "application/json").end(Buffer.buffer(a.body()));
            } else {
                req.response().setStatusCode(a.status()).putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; charset=utf-8")
                        .end(Buffer.buffer(a.body()));
            }
        }).onFailure(e -> text(req, 500, "internal error: " + e + "\n"));
    }

    /** The answer to an authenticated request: its fields checked first (400), then the server's (503 when there is none). */
    private static Answer answer(String path, byte[] body, BandwidthServer server, String why) {
        try {
            if (path.equals(BandwidthMessages.START_PATH)) {
                BandwidthMessages.Start s = JSON.readValue(body, BandwidthMessages.Start.class);
                s.check();
                return server == null ? Answer.text(503, why) : new Answer(200, JSON.writeValueAsBytes(server.start(s)));
            }
            if (path.equals(BandwidthMessages.GO_PATH)) {
                BandwidthMessages.Go g = JSON.readValue(body, BandwidthMessages.Go.class);
                g.check();
                if (server == null) {
                    return Answer.text(503, why);
                }
                server.go(g);
                return new Answer(200, "{}".getBytes(StandardCharsets.UTF_8));
            }
            BandwidthMessages.Stop s = JSON.readValue(body, BandwidthMessages.Stop.class);
            s.check();
            return server == null ? Answer.text(503, why) : new Answer(200, JSON.writeValueAsBytes(server.stop(s)));
        } catch (JacksonException e) {
            return Answer.text(400, "not a bandwidth request: " + oneLine(e.getOriginalMessage()));
        } catch (BandwidthServer.Refused e) {
            return Answer.text(e.status(), e.getMessage());
        } catch (IOException e) {
            LOG.warning("bandwidth test refused: " + e.getMessage());
            return Answer.text(500, "cannot set up the test here: " + e.getMessage());
        }
    }

    /** At most 200 characters of a parser's message, control characters shown as '?' (it may quote the body). */
    private static String oneLine(String s) {
        String t = s == null ? "unreadable JSON" : s.strip();
        t = t.length() > 200 ? t.substring(0, 200) + "..." : t;
        return t.replaceAll("\\p{Cntrl}", "?");
    }

    private record Answer(int status, byte[] body) {
        static Answer text(int status, String line) {
            return new Answer(status, (line + "\n").getBytes(StandardCharsets.UTF_8));
        }
    }

    private static void text(HttpServerRequest req, int status, String body) {
        EndpointRefusal.text(req, status, body);
    }
}
