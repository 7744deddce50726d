package io.fabricd.preflight;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.List;
import java.util.Locale;

/**
 * What the gate knows of one node of the set: whether its agent answered, and its findings.
 *
 * @param why for a node whose agent did not answer well, one line saying what happened (else null)
 */
public record NodeInput(String node, State state, String why, List<FindingInput> findings) {
    /** How the node's agent answered. */
    public enum State {
        /** It answered with its state. */
        REACHABLE,
        /** No connection, or no answer in time. */
        UNREACHABLE,
        /** An answer that is not a preflight answer (or not signed by the fabric's key). */
        GARBAGE,
        /** It refused the request's authentication (401: the key, the clocks, another release). */
        REFUSED,
        /**
         * It answered that it cannot answer, or not now (an older release without preflight, no
         * collection yet, busy, a request too large, a failure of its own): {@code why} says which and
         * what to do.
         */
        UNAVAILABLE,
        /** It answered, but with a collection too old to judge the node by: {@code why} says how old. */
        STALE,
        /**
         * An agent of the fabric answered at the node's address, but not the node's own: another
         * node's (a relay at the address, or a node list that points at the wrong one); {@code why}
         * names both. Nothing it said is taken for the node's.
         */
        OTHER_AGENT;

        /** {@code reachable}, {@code unreachable}, ...: the evidence's form. */
        @JsonValue
        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public NodeInput {
        if (node == null || node.isEmpty() || state == null) {
            throw new IllegalArgumentException("a node input needs a node name and a state");
        }
        findings = findings == null ? List.of() : List.copyOf(findings);
    }

    public static NodeInput reachable(String node, List<FindingInput> findings) {
        return new NodeInput(node, State.REACHABLE, null, findings);
    }

    public static NodeInput unreachable(String node, String why) {
        return new NodeInput(node, State.UNREACHABLE, why, List.of());
    }
}
