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
import java.util.Locale;
import java.util.logging.Logger;

/**
 * {@code POST /api/v1/bandwidth/start}, {@code /go} and {@code /stop} (docs/bandwidth.md): requests signed with
 * the probe key over their body ({@link EndpointAuth#signedPath}), each once; answers signed for
 * the request. Bodies are read up to 64 KiB; the queue pairs are set up off the event loop. Other
 * paths go to the next handler.
 */
public final class BandwidthApi {
    private static final Logger LOG = Logger.getLogger(BandwidthApi.class.getName());
    static final int MAX_BODY = 64 * 1024;
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
            Buffer body = Buffer.buffer();
            req.handler(chunk -> {
                if (body.length() + chunk.length() > MAX_BODY) {
                    req.connection().close();
                    return;
                }
                body.appendBuffer(chunk);
            });
            req.endHandler(v -> handle(req, body.getBytes(), vertx, server, auth, stats, why));
        };
    }

    private static void handle(HttpServerRequest req, byte[] body, Vertx vertx, BandwidthServer server, EndpointAuth auth,
                               ResponderStats stats, String why) {
        String header = req.getHeader(EndpointAuth.REQUEST_HEADER);
        EndpointAuth.Verdict v = auth.check(header, "POST", EndpointAuth.signedPath(req.path(), body), req.getHeader(HttpHeaders.HOST),
                System.currentTimeMillis() / 1000);
        if (v != EndpointAuth.Verdict.OK) {
            stats.dropped(v == EndpointAuth.Verdict.REPLAYED ? "endpoint_replayed" : "endpoint_unauthenticated");
            text(req, 401, "bandwidth requests need a valid " + EndpointAuth.REQUEST_HEADER + " (" + v.name().toLowerCase(Locale.ROOT)
                    + ")\n");
            return;
        }
        if (server == null) {
            text(req, 503, why + "\n");
            return;
        }
        String nonce = EndpointAuth.nonce(header);
        String path = req.path();
        vertx.executeBlocking(() -> {
            try {
                if (path.equals(BandwidthMessages.START_PATH)) {
                    return new Answer(200, JSON.writeValueAsBytes(server.start(JSON.readValue(body, BandwidthMessages.Start.class))));
                }
                if (path.equals(BandwidthMessages.GO_PATH)) {
                    server.go(JSON.readValue(body, BandwidthMessages.Go.class));
                    return new Answer(200, "{}".getBytes(StandardCharsets.UTF_8));
                }
                return new Answer(200, JSON.writeValueAsBytes(server.stop(JSON.readValue(body, BandwidthMessages.Stop.class))));
            } catch (JacksonException e) {
                return new Answer(400, ("not a bandwidth request: " + e.getOriginalMessage() + "\n").getBytes(StandardCharsets.UTF_8));
            } catch (BandwidthServer.Refused e) {
                return new Answer(e.status(), (e.getMessage() + "\n").getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                LOG.warning("bandwidth test refused: " + e.getMessage());
                return new Answer(500, ("cannot set up the test here: " + e.getMessage() + "\n").getBytes(StandardCharsets.UTF_8));
            }
        }, false).onSuccess(a -> {
            if (a.status() == 200) {
                req.response().putHeader(EndpointAuth.ANSWER_HEADER, auth.answerHeader(nonce, a.body()))
                        .putHeader(HttpHeaders.CONTENT_TYPE, "application/json").end(Buffer.buffer(a.body()));
            } else {
                req.response().setStatusCode(a.status()).putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; charset=utf-8")
                        .end(Buffer.buffer(a.body()));
            }
        }).onFailure(e -> text(req, 500, "internal error: " + e + "\n"));
    }

    private record Answer(int status, byte[] body) {
    }

    private static void text(HttpServerRequest req, int status, String body) {
        req.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; charset=utf-8").end(body);
    }
}
