package io.fabricd.preflight;

import io.fabricd.model.finding.Subject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A node's verdict from its agent's answer alone: how it answered, and its findings. */
final class NodeJudge {
    /** PASS (so far), EXCLUDE (findings) or UNKNOWN (the agent did not answer well, or with a stale collection). */
    record Call(Verdict verdict, List<String> reasons, NodeVerdict.Evidence evidence) {
    }

    private NodeJudge() {
    }

    static Call judge(NodeInput n, Policy policy) {
        if (n.state() != NodeInput.State.REACHABLE) {
            String why = Texts.line(n.why());
            return new Call(Verdict.UNKNOWN, List.of(unanswered(n, why)), new NodeVerdict.Evidence(n.state(), why, null, null, 0, 0, null));
        }
        List<String> reasons = new ArrayList<>();
        List<String> checks = new ArrayList<>();
        for (FindingInput f : n.findings()) {
            if (policy.excludes(f)) {
                reasons.add(finding(n.node(), f));
                checks.add(Texts.line(f.check()));
            }
        }
        return new Call(reasons.isEmpty() ? Verdict.PASS : Verdict.EXCLUDE, reasons,
                new NodeVerdict.Evidence(n.state(), null, checks.isEmpty() ? null : checks, null, 0, 0, null));
    }

    private static String unanswered(NodeInput n, String why) {
        String said = why.isEmpty() ? "" : " (" + why + ")";
        return switch (n.state()) {
            case UNREACHABLE -> n.node() + ": agent unreachable" + said + ": check that fabricd runs there and its port is open, then rerun";
            case GARBAGE -> n.node() + ": agent's answer is not a preflight answer" + said
                    + ": check that the port is fabricd's and its version, then rerun";
            case REFUSED -> n.node() + ": agent refused the probe key" + said + ": check that the key is the fabric's, that both clocks are"
                    + " right (NTP) and that the agent and this command are the same fabricd release, then rerun";
            case UNAVAILABLE -> n.node() + ": agent could not answer" + said + ", then rerun";
            case STALE -> n.node() + ": its collection is stale" + said + ": check the agent's log and its /readyz (a collection that"
                    + " hangs or fails), then rerun";
            case OTHER_AGENT -> n.node() + ": not its agent's answer" + said + ": check what listens at that address (the node list's"
                    + " NAME=HOST:PORT, the name's DNS) and that its agent goes by the node's name (probe.node_name, else the host's name;"
                    + " short or full), then rerun";
            case REACHABLE -> throw new IllegalStateException("answered");
        };
    }

    /** "gpu007: critical finding pfc_missing on mlx5_0 port 1 (summary): remediation, then rerun". */
    static String finding(String node, FindingInput f) {
        StringBuilder b = new StringBuilder(node).append(": ").append(f.severity().id()).append(" finding ").append(Texts.line(f.check()));
        String on = subject(f.subject());
        if (!on.isEmpty()) {
            b.append(" on ").append(on);
        }
        String summary = Texts.line(f.summary());
        if (!summary.isEmpty()) {
            b.append(" (").append(summary).append(')');
        }
        String fix = Texts.line(f.remediation());
        b.append(": ").append(fix.isEmpty() ? "see fabricd diagnose on the node" : fix).append(", then rerun");
        return b.toString();
    }

    /** "mlx5_0 port 1": its parts in {@link Subject#PARTS}' order, the device's by its name alone. */
    private static String subject(Subject s) {
        Map<String, String> parts = s.parts();
        List<String> words = new ArrayList<>();
        for (String k : Subject.PARTS) {
            String v = parts.get(k);
            if (v != null) {
                words.add(k.equals("device") ? Texts.line(v) : k + " " + Texts.line(v));
            }
        }
        return Texts.line(String.join(" ", words));
    }
}
