package io.fabricd.gate;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabricd.gate.wire.PreflightWire.Window;
import io.fabricd.gate.wire.PreflightWire;
import io.fabricd.model.finding.Severity;
import io.fabricd.model.topology.Placement;
import io.fabricd.preflight.FindingInput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * An agent's answer to {@code POST /api/v1/preflight/state} ({@link PreflightWire.StateAnswer}) as
 * the gate judges it: its node and host name, its findings and its probe windows with counts (a
 * window whose counts are none an agent makes is dropped). Anything else is garbage (an IOException
 * saying so).
 *
 * @param node    the name the agent goes by among its peers (probe.node_name, else its host's name):
 *                what its probe endpoint says, and so what its peers' probe windows name it
 * @param host    the host name of the agent's latest collection
 * @param intervalSeconds the agent's collection interval, when it says it (agents of this release do)
 * @param windows the agent's probe windows, each to a peer named as that peer's endpoint names it
 * @param placement where the agent says its host sits; null when it does not say
 */
record StateAnswer(String node, String host, String collectedAt, Double intervalSeconds, List<FindingInput> findings, List<Window> windows,
                   PreflightWire.Placement placement) {

    StateAnswer(String node, String host, String collectedAt, Double intervalSeconds, List<FindingInput> findings, List<Window> windows) {
        this(node, host, collectedAt, intervalSeconds, findings, windows, null);
    }

    /**
     * Where the agent says node {@code name} (as the set names it) sits, or empty when it does not
     * say or says something that is no placement (a name that is none, a source this build does not
     * know): a placement is evidence for the fabric view, never a reason to doubt the node.
     */
    Optional<Placement> placementOf(String name) {
        if (placement == null || placement.switches() == null || placement.switches().stream().anyMatch(Objects::isNull)) {
            return Optional.empty();
        }
        Placement.Source source = Arrays.stream(Placement.Source.values()).filter(x -> x.wireName().equals(placement.source())).findFirst()
                .orElse(null);
        try {
            return source == null ? Optional.empty() : Optional.of(new Placement(name, placement.switches(), placement.accelerator(), source));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    static StateAnswer parse(byte[] body) throws IOException {
        PreflightWire.StateAnswer j;
        try {
            j = PreflightWire.ANSWERS.readValue(body, PreflightWire.StateAnswer.class);
        } catch (IOException e) {
            throw new IOException("answered something that is not JSON: not a fabricd agent of this release?");
        }
        if (j == null || j.findings() == null || j.windows() == null) {
            throw new IOException("answered JSON without findings and probes: not a fabricd agent of this release?");
        }
        List<FindingInput> findings = new ArrayList<>();
        for (JsonNode node : j.findings()) {
            PreflightWire.Finding f;
            try {
                f = PreflightWire.ANSWERS.treeToValue(node, PreflightWire.Finding.class);
            } catch (IOException | IllegalArgumentException e) {
                f = null;
            }
            String id = f == null ? null : f.severity();
            Severity sev = Arrays.stream(Severity.values()).filter(x -> x.id().equals(id)).findFirst().orElse(null);
            if (sev == null || f.check() == null) {
                throw new IOException("answered a finding without a check, a known severity or a readable subject: not a fabricd agent"
                        + " of this release?");
            }
            findings.add(new FindingInput(f.check(), sev, f.summary(), f.remediation(), f.subject()));
        }
        List<Window> windows = new ArrayList<>();
        for (Window w : j.windows()) {
            if (w != null && w.peer() != null && w.sent() >= 0 && w.lost() >= 0) { // else no evidence, rather than sums that overflow
                windows.add(w.transport() != null ? w : new Window(w.peer(), w.peerAddress(), "udp", w.size(), w.sent(), w.lost(), w.late(),
                        w.p50Seconds(), w.p99Seconds(), w.holdP50Seconds(), w.holdP90Seconds()));
            }
        }
        Double interval = j.intervalSeconds() != null && j.intervalSeconds() > 0 ? j.intervalSeconds() : null;
        return new StateAnswer(j.node(), j.host(), j.collectedAt(), interval, findings, windows, j.placement());
    }
}
