package io.fabricd.agent.http;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.model.OneLine;
import io.fabricd.probes.bandwidth.BandwidthMessages;
import io.fabricd.probes.bandwidth.BandwidthServer;
import io.fabricd.probes.peers.EndpointAuth;
import io.fabricd.probes.responder.ResponderStats;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.logging.Logger;

/**
 * {@code POST /api/v1/bandwidth/start}, {@code /go} and {@code /stop} (docs/bandwidth.md): requests signed with
 * the probe key for this agent ({@link EndpointAuth}), each once; answers signed for the request.
 * The header is checked before any body is read ({@link SignedPost}): a request that fails gets 401 at once and its body
 * is never read, so unauthenticated senders hold no request slot. An authenticated body is read up
 * to 64 KiB within 10 s (else the connection is closed), two at a time per source ({@link BodyReads}) and must be the one the
 * header signs; its fields are checked (400, one line) before the queue pairs are set up off the
 * event loop. Other paths go to the next handler.
 */
public final class BandwidthApi {
    private static final Logger LOG = Logger.getLogger(BandwidthApi.class.getName());
    private static final ObjectMapper JSON = new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private BandwidthApi() {
    }

    /**
     * @param server null when this agent serves no bandwidth tests (bandwidth.serve off, a snapshot, no verbs)
     * @param auth   null without a probe key
     * @param why    what to answer when there is no server (to requests that pass the key, when there is one)
     * @param reads  the signed bodies on their way, shared with the preflight paths
     */
    public static Handler<HttpServerRequest> wrap(Handler<HttpServerRequest> next, Vertx vertx, BandwidthServer server,
                                                  EndpointAuth auth, ResponderStats stats, String why, BodyReads reads) {
        return req -> {
            String path = req.path();
            if (!path.equals(BandwidthMessages.START_PATH) && !path.equals(BandwidthMessages.GO_PATH)
                    && !path.equals(BandwidthMessages.STOP_PATH)) {
                next.handle(req);
                return;
            }
            SignedPost.accept(req, vertx, auth, stats, why, "bandwidth requests", reads,
                    (r, body, nonce) -> vertx.executeBlocking(() -> answer(path, body, server, why), false)
                            .onSuccess(a -> SignedPost.answer(r, auth, nonce, a.status(), a.body(), 0))
                            .onFailure(e -> SignedPost.text(r, 500, "internal error: " + e + "\n")));
        };
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
            return Answer.text(400, "not a bandwidth request: " + (e.getOriginalMessage() == null ? "unreadable JSON" : OneLine.of(e.getOriginalMessage())));
        } catch (BandwidthServer.Refused e) {
            return Answer.text(e.status(), e.getMessage());
        } catch (IOException e) {
            LOG.warning("bandwidth test refused: " + e.getMessage());
            return Answer.text(500, "cannot set up the test here: " + e.getMessage());
        }
    }

    private record Answer(int status, byte[] body) {
        static Answer text(int status, String line) {
            return new Answer(status, SignedPost.line(line));
        }
    }
}
