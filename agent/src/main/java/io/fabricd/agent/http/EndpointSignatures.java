package io.fabricd.agent.http;

import io.fabricd.agent.loop.Meters;
import io.fabricd.http.LingeringClose;
import io.fabricd.http.Signatures;
import io.fabricd.model.metrics.AgentMetrics;
import io.fabricd.probes.peers.EndpointAuth;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.http.HttpServerRequest;
import java.util.Locale;

/**
 * The signed routes' check: the {@link EndpointAuth} header, signed with the probe key for this
 * agent, each request once; answers signed for the request. A request that does not pass gets 401
 * saying why, counted by reason ({@code fabric_agent_http_signed_refused_total}). One whose tag is
 * good but that was signed for another agent, or for none, gets this agent's id
 * ({@link EndpointAuth#AGENT_ID_HEADER}), which the requester signs its next request for; one for
 * none is a requester learning the id and not counted, one for another agent is counted as a
 * replay (a request captured elsewhere, or a requester that knew this address by another agent).
 */
public final class EndpointSignatures implements Signatures {
    private final EndpointAuth auth;
    private final Counter unauthenticated;
    private final Counter replayed;

    public EndpointSignatures(EndpointAuth auth, MeterRegistry meters) {
        this.auth = auth;
        this.unauthenticated = refused(meters, "unauthenticated");
        this.replayed = refused(meters, "replayed");
    }

    private static Counter refused(MeterRegistry meters, String reason) {
        return Counter.builder(Meters.name(AgentMetrics.HTTP_SIGNED_REFUSED)).description(AgentMetrics.HTTP_SIGNED_REFUSED.help())
                .tag("reason", reason).register(meters);
    }

    @Override
    public boolean admit(HttpServerRequest req, String what) {
        return pass(req, auth.check(req.getHeader(EndpointAuth.REQUEST_HEADER), req.method().name(), req.path(),
                System.currentTimeMillis() / 1000), what);
    }

    @Override
    public boolean body(HttpServerRequest req, byte[] body, String what) {
        return pass(req, EndpointAuth.checkBody(req.getHeader(EndpointAuth.REQUEST_HEADER), body), what);
    }

    @Override
    public void sign(HttpServerRequest req, byte[] body) {
        req.response().putHeader(EndpointAuth.ANSWER_HEADER, auth.answerHeader(EndpointAuth.nonce(req.getHeader(EndpointAuth.REQUEST_HEADER)), body));
    }

    /** Whether {@code v} is OK; when not, the 401 of a request of {@code what} ("probe endpoint requests"). */
    private boolean pass(HttpServerRequest req, EndpointAuth.Verdict v, String what) {
        if (v == EndpointAuth.Verdict.OK) {
            return true;
        }
        String why = v.name().toLowerCase(Locale.ROOT);
        if (v == EndpointAuth.Verdict.WRONG_AGENT) {
            req.response().putHeader(EndpointAuth.AGENT_ID_HEADER, auth.agentId());
            if (!req.getHeader(EndpointAuth.REQUEST_HEADER).split(":", -1)[3].equals(EndpointAuth.UNKNOWN_AGENT)) {
                replayed.increment();
            }
            why += ": signed for another agent; this agent's id is in " + EndpointAuth.AGENT_ID_HEADER;
        } else {
            (v == EndpointAuth.Verdict.REPLAYED ? replayed : unauthenticated).increment();
        }
        if (v == EndpointAuth.Verdict.BODY_MISMATCH) {
            why += ": the body is not the one the header signs";
        }
        if (v == EndpointAuth.Verdict.OLD_VERSION) {
            why += ": a request of an older fabricd; agents exchange endpoints with agents of their own release only, upgrade "
                    + "them together (roll the DaemonSet)";
        }
        LingeringClose.text(req, 401, what + " need a valid " + EndpointAuth.REQUEST_HEADER + " (" + why + ")\n");
        return false;
    }
}
