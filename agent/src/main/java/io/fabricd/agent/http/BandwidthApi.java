package io.fabricd.agent.http;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.agent.preflight.Answer;
import io.fabricd.http.Route;
import io.fabricd.http.Signatures;
import io.fabricd.model.OneLine;
import io.fabricd.probes.bandwidth.BandwidthMessages;
import io.fabricd.probes.bandwidth.BandwidthServer;
import io.fabricd.probes.peers.EndpointAuth;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Logger;

/**
 * {@code POST /api/v1/bandwidth/start}, {@code /go} and {@code /stop} (docs/bandwidth.md): requests signed with
 * the probe key for this agent ({@link EndpointAuth}), each once; answers signed for the request.
 * The header is checked before any body is read (the http module's signed routes): a request that fails gets 401 at once and its body
 * is never read, so unauthenticated senders hold no request slot. An authenticated body is read up
 * to 64 KiB within 10 s (else the connection is closed), two at a time per source ({@link BodyReads}) and must be the one the
 * header signs; its fields are checked (400, one line) before the queue pairs are set up off the
 * event loop.
 */
public final class BandwidthApi {
    private static final Logger LOG = Logger.getLogger(BandwidthApi.class.getName());
    private static final ObjectMapper JSON = new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private BandwidthApi() {
    }

    /**
     * @param server     null when this agent serves no bandwidth tests (bandwidth.serve off, a snapshot, no verbs)
     * @param signatures null without a probe key: then the paths answer 503 with {@code why} to anyone
     * @param why        what to answer when there is no server (to requests that pass the key, when there is one)
     */
    public static List<Route> routes(Vertx vertx, BandwidthServer server, Signatures signatures, String why) {
        return HttpApi.signedPosts(vertx, List.of(BandwidthMessages.START_PATH, BandwidthMessages.GO_PATH, BandwidthMessages.STOP_PATH),
                "bandwidth requests", signatures, signatures == null ? why : null,
                (path, body) -> CompletableFuture.completedFuture(answer(path, body, server, why)));
    }

    /** The answer to an authenticated request: its fields checked first (400), then the server's (503 when there is none). */
    private static Answer answer(String path, byte[] body, BandwidthServer server, String why) {
        try {
            if (path.equals(BandwidthMessages.START_PATH)) {
                BandwidthMessages.Start s = JSON.readValue(body, BandwidthMessages.Start.class);
                s.check();
                return server == null ? Answer.line(503, why) : Answer.json(JSON.writeValueAsBytes(server.start(s)));
            }
            if (path.equals(BandwidthMessages.GO_PATH)) {
                BandwidthMessages.Go g = JSON.readValue(body, BandwidthMessages.Go.class);
                g.check();
                if (server == null) {
                    return Answer.line(503, why);
                }
                server.go(g);
                return Answer.json("{}".getBytes(StandardCharsets.UTF_8));
            }
            BandwidthMessages.Stop s = JSON.readValue(body, BandwidthMessages.Stop.class);
            s.check();
            return server == null ? Answer.line(503, why) : Answer.json(JSON.writeValueAsBytes(server.stop(s)));
        } catch (JacksonException e) {
            return Answer.line(400, "not a bandwidth request: " + (e.getOriginalMessage() == null ? "unreadable JSON" : OneLine.of(e.getOriginalMessage())));
        } catch (BandwidthServer.Refused e) {
            return Answer.line(e.status(), e.getMessage());
        } catch (IOException e) {
            LOG.warning("bandwidth test refused: " + e.getMessage());
            return Answer.line(500, "cannot set up the test here: " + e.getMessage());
        }
    }
}
