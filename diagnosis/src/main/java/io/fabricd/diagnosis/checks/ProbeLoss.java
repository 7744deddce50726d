package io.fabricd.diagnosis.checks;

import io.fabricd.diagnosis.Check;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.model.finding.Evidence;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Severity;
import io.fabricd.model.finding.Subject;
import io.fabricd.model.probe.ProbeResults;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code probe_loss}: the share of probes to a peer lost over the window (probe.window rounds) above
 * probe.loss_threshold, with at least {@link DiagnosisConfig.Probes#minProbes()} sent. Critical when
 * nothing came back; a warning when some did, or when the peer's responder said it dropped
 * requests itself (its rate limit or a flood: not necessarily the network). One finding per peer
 * and local device: the most severe of its transports and sizes.
 */
public final class ProbeLoss extends Check.Declared {

    public ProbeLoss() {
        super("probe_loss");
    }

    @Override
    public List<Finding> evaluate(Inputs in, DiagnosisConfig config) {
        ProbeResults probes = in.probes();
        DiagnosisConfig.Probes t = config.probes();
        List<Finding> out = new ArrayList<>();
        for (ProbeResults.Window w : probes.windows()) {
            if (w.sent() < t.minProbes() || !((double) w.lost() / w.sent() > t.lossThreshold())) {
                continue;
            }
            Evidence.Builder ev = Evidence.builder();
            ev.put("peer", w.peer());
            ev.put("peer_rack", w.peerRack());
            ev.put("transport", w.transport());
            ev.put("size", w.size());
            ev.put("sent", w.sent());
            ev.put("lost", w.lost());
            ev.put("late", w.late());
            ev.put("loss_ratio", Math.round((double) w.lost() / w.sent() * 10000) / 10000.0);
            ev.put("threshold", t.lossThreshold());
            String lost = Math.round((double) w.lost() / w.sent() * 1000) / 10.0 + " % of " + w.transport() + " probes of " + w.size()
                    + " B to " + w.peer() + " lost";
            Subject subject = Subject.peer(w.peer(), w.localDevice());
            if (w.responderOverloaded()) {
                ev.put("responder_overloaded", true);
                out.add(new Finding(id(), Severity.WARNING, subject, lost
                        + ", and the peer's responder says it dropped requests itself (not necessarily the network)", ev,
                        "Look at the peer's fabric_probe_responder_dropped_total: rate_limited means more agents probe it than "
                                + "probe.responder_rate allows (raise it), overflow a flood of packets at its probe port "
                                + "(unauthenticated, malformed) from whoever sends them."));
            } else {
                out.add(new Finding(id(), w.lost() == w.sent() ? Severity.CRITICAL : Severity.WARNING, subject, lost, ev,
                        "Probe the peer by hand (`fabricd probe " + w.peer() + " --transport " + w.transport() + " --count 1000`); "
                                + "loss only at large sizes points at an MTU mismatch on the path, loss to every peer of one rack at its "
                                + "ToR, loss to one peer at that host (link_down, port errors, pause storm findings there)."));
            }
        }
        return ProbeVerdicts.mostSevere(out);
    }
}
