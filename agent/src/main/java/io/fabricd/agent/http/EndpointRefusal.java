package io.fabricd.agent.http;

import io.fabricd.probes.peers.EndpointAuth;
import io.fabricd.probes.responder.ResponderStats;
import io.vertx.core.http.HttpServerRequest;
import java.util.Locale;

/**
 * The 401 of a request to the endpoint or bandwidth paths whose {@link EndpointAuth} header does
 * not pass, counted by reason ({@code fabric_probe_responder_dropped_total}). A request whose tag
 * is good but that was signed for another agent, or for none, gets this agent's id
 * ({@link EndpointAuth#AGENT_ID_HEADER}), which the requester signs its next request for; one for
 * none is a requester learning the id and not counted, one for another agent is counted as a
 * replay (a request captured elsewhere, or a requester that knew this address by another agent).
 */
final class EndpointRefusal {
    private EndpointRefusal() {
    }

    /** Answers 401 for {@code v} (not OK) to a request of {@code what} ("probe endpoint requests"). */
    static void refuse(HttpServerRequest req, EndpointAuth auth, ResponderStats stats, EndpointAuth.Verdict v, String what) {
        String header = req.getHeader(EndpointAuth.REQUEST_HEADER);
        String why = v.name().toLowerCase(Locale.ROOT);
        if (v == EndpointAuth.Verdict.WRONG_AGENT) {
            req.response().putHeader(EndpointAuth.AGENT_ID_HEADER, auth.agentId());
            if (!header.split(":", -1)[3].equals(EndpointAuth.UNKNOWN_AGENT)) {
                stats.dropped("endpoint_replayed");
            }
            why += ": signed for another agent; this agent's id is in " + EndpointAuth.AGENT_ID_HEADER;
        } else {
            stats.dropped(v == EndpointAuth.Verdict.REPLAYED ? "endpoint_replayed" : "endpoint_unauthenticated");
        }
        if (v == EndpointAuth.Verdict.BODY_MISMATCH) {
            why += ": the body is not the one the header signs";
        }
        if (v == EndpointAuth.Verdict.OLD_VERSION) {
            why += ": a request of an older fabricd; agents exchange endpoints with agents of their own release only, upgrade "
                    + "them together (roll the DaemonSet)";
        }
        LingeringClose.text(req, 401, what + " need a valid " + EndpointAuth.REQUEST_HEADER + " (" + why + ")\n");
    }
}
