package io.fabricd.gate;

import io.fabricd.gate.wire.PreflightWire;
import io.fabricd.preflight.NodeInput;
import io.fabricd.preflight.NodeNames;
import io.fabricd.probes.peers.EndpointClient;
import java.io.IOException;

/**
 * The preflight requests to one node's agent (docs/preflight.md, "What the agents answer"), signed
 * with the fabric's key through {@link EndpointClient}, and what a failure means for the node: not
 * reachable, its key refused (401), an agent that cannot answer (an older release without preflight,
 * no collection yet, busy past the budget, a request too large, a failure of its own: each said as
 * such), an answer that is not a fabricd agent's, or one signed by another node's agent (a relay at
 * the node's address, or a node list that points at the wrong one: {@link NodeNames}).
 */
final class AgentAsk {
    /** Time kept for the request itself after a wait for a busy agent. */
    private static final long REQUEST_NANOS = 1_500_000_000L;

    /** How a request reaches an agent: {@link EndpointClient#ask}, or a stand-in in tests. */
    @FunctionalInterface
    interface Transport {
        EndpointClient.Answered post(String address, String path, byte[] body) throws IOException;
    }

    /** An agent's answer other than 200, said as what it means for the node (one line). */
    static final class Failed extends IOException {
        private static final long serialVersionUID = 1L;
        private final NodeInput.State state;
        private final int status;
        private final long retryAfterSeconds;

        Failed(NodeInput.State state, int status, String why, long retryAfterSeconds) {
            super(why);
            this.state = state;
            this.status = status;
            this.retryAfterSeconds = retryAfterSeconds;
        }

        NodeInput.State state() {
            return state;
        }

        int status() {
            return status;
        }

        /** Another node's agent answered: asking it again changes nothing. */
        boolean otherAgent() {
            return state == NodeInput.State.OTHER_AGENT;
        }

        /** 429 (over the rate, a test running) and 409 (a test of its own): it will do it later. */
        boolean busy() {
            return status == 429 || status == 409;
        }
    }

    private final Transport transport;

    AgentAsk(Transport transport) {
        this.transport = transport;
    }

    /**
     * POSTs {@code body} as JSON to {@code path} of {@code node}'s agent; its answer's bytes, once the
     * agent that signed it proved to be that node's.
     */
    byte[] post(NodeSet.Node node, String path, PreflightWire.Versioned body) throws IOException {
        EndpointClient.Answered a;
        try {
            a = transport.post(node.address(), path, PreflightWire.REQUESTS.writeValueAsBytes(body));
        } catch (EndpointClient.Refused r) {
            throw failed(node.address(), path, r);
        }
        if (!NodeNames.same(node.name(), a.agent())) {
            throw new Failed(NodeInput.State.OTHER_AGENT, 0, "the agent answering at " + node.address() + " is node "
                    + Texts.line(a.agent()) + "'s, not " + node.name() + "'s: a relay, or a node list that points at the wrong address", 0);
        }
        return a.body();
    }

    /**
     * Posts and, while the agent answers busy, asks again after its {@code Retry-After} (a second
     * at least) as long as that leaves time for the request before {@code deadline}
     * (System.nanoTime); else the busy answer is the outcome, saying so.
     */
    byte[] postUntilFree(NodeSet.Node node, String path, PreflightWire.Versioned body, long deadline) throws IOException, InterruptedException {
        while (true) {
            try {
                return post(node, path, body);
            } catch (Failed e) {
                if (!e.busy()) {
                    throw e;
                }
                long waitNanos = Math.max(1, e.retryAfterSeconds) * 1_000_000_000L;
                if (deadline - System.nanoTime() < waitNanos + REQUEST_NANOS) {
                    throw new Failed(e.state(), e.status(), e.getMessage() + "; asking again after " + Math.max(1, e.retryAfterSeconds)
                            + " s would pass the time budget (--timeout)", e.retryAfterSeconds);
                }
                Thread.sleep(waitNanos / 1_000_000L);
            }
        }
    }

    /** What an answer other than 200 means for the node, in words. */
    static Failed failed(String address, String path, EndpointClient.Refused r) {
        String said = r.text() == null || r.text().isEmpty() ? "" : ": " + r.text();
        int s = r.status();
        String why = switch (s) {
            case 401 -> address + " answered 401" + said;
            case 404 -> address + " answered 404 to " + path + ": an older fabricd without preflight: upgrade it to this release";
            case 409, 429 -> address + " is busy (" + s + said + ")";
            case 413 -> address + " answered 413: the request was larger than the agent takes" + said
                    + ": upgrade the agent and this command to one release";
            case 500 -> address + " answered 500: it failed answering" + said + ": see its log";
            default -> address + " answered " + s + said; // 503: the agent's own reason (no collection yet, no bandwidth tests here)
        };
        return new Failed(s == 401 ? NodeInput.State.REFUSED : NodeInput.State.UNAVAILABLE, s, why, r.retryAfterSeconds());
    }

    /** Which kind of failure a call's outcome is: {@link Failed}'s own, else from {@link EndpointClient}'s words. */
    static NodeInput.State state(Throwable cause, String error) {
        if (cause instanceof Failed f) {
            return f.state();
        }
        String m = String.valueOf(error);
        if (m.contains("not signed with the probe key") || m.contains("not JSON") || m.contains("not a fabricd agent")
                || m.contains("larger than")) {
            return NodeInput.State.GARBAGE;
        }
        if (m.startsWith("cannot reach ") && !(m.contains("connection refused") || m.contains("cannot resolve") || m.contains("within")
                || m.contains("timed out"))) {
            return NodeInput.State.GARBAGE; // it answered, but not in HTTP
        }
        return NodeInput.State.UNREACHABLE;
    }
}
