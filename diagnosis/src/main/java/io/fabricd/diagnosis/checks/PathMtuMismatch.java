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
 * {@code mtu_mismatch} across hosts (warning): the two ends of a verbs probe path run different
 * active MTUs (the peer tells its own in its endpoint). Part of mtu_mismatch: disabling that check
 * disables this too.
 */
public final class PathMtuMismatch extends Check.Declared {

    public PathMtuMismatch() {
        super("mtu_mismatch");
    }

    @Override
    public List<Finding> evaluate(Inputs in, DiagnosisConfig config) {
        ProbeResults probes = in.probes();
        List<Finding> out = new ArrayList<>();
        for (ProbeResults.PathMtu p : probes.paths()) {
            if (p.localMtu() == p.peerMtu() || p.localMtu() <= 0 || p.peerMtu() <= 0) {
                continue;
            }
            Evidence.Builder ev = Evidence.builder();
            ev.put("local_device", p.localDevice());
            ev.put("local_active_mtu", p.localMtu());
            ev.put("peer_device", p.peerDevice());
            ev.put("peer_active_mtu", p.peerMtu());
            out.add(new Finding(id(), Severity.WARNING, Subject.peer(p.peer(), p.localDevice()), "active MTU " + p.localMtu() + " of "
                    + p.localDevice() + " differs from " + p.peerMtu() + " of " + p.peerDevice() + " on " + p.peer(), ev,
                    "Give both ends the same MTU: the netdev MTU on RoCE (4200 for active MTU 4096), the partition MTU on InfiniBand. "
                            + "Large transfers from the bigger side stall while small messages work."));
        }
        return out;
    }
}
