package io.fabricd.diagnosis.checks;

import io.fabricd.model.HostModel;
import io.fabricd.model.NetdevInfo;
import io.fabricd.model.RdmaPort;
import io.fabricd.diagnosis.Check;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.model.finding.Evidence;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Severity;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code global_pause_with_pfc} (warning): 802.3x link-level pause on a port that also has PFC.
 * Global pause stops every priority, so one congested class pauses all traffic (and the two fight
 * over the MAC's pause handling). Global pause is read from ETHTOOL_GPAUSEPARAM, or from what the
 * driver's statistics prove when the parameters were not read (mlx5 lists rx/tx_global_pause only
 * while global pause is on); PFC from DCB or the statistics ({@link NetdevInfo#pfc()}).
 */
public final class GlobalPauseWithPfc extends Check.Declared {

    public GlobalPauseWithPfc() {
        super("global_pause_with_pfc");
    }

    @Override
    public List<Finding> evaluate(Inputs in, DiagnosisConfig config) {
        HostModel m = in.current();
        List<Finding> out = new ArrayList<>();
        for (RdmaPort p : m.ports()) {
            NetdevInfo nd = Ports.netdev(m, p);
            if (!Ports.ethernet(p) || nd == null || !p.inService()) {
                continue;
            }
            NetdevInfo.Pfc pfc = nd.pfc().orElse(null);
            if (pfc == null || pfc.enabled().isEmpty() || !nd.globalPause().orElse(false)) {
                continue;
            }
            Evidence.Builder ev = Evidence.builder();
            if (nd.pause() != null) {
                ev.put("pause_rx", nd.pause().rx());
                ev.put("pause_tx", nd.pause().tx());
                ev.put("pause_autoneg", nd.pause().autoneg());
                ev.put("source", "ETHTOOL_GPAUSEPARAM");
            } else {
                ev.put("source", "ethtool -S lists rx/tx_global_pause (" + nd.driver() + " lists them only while global pause is on)");
            }
            ev.numbers("pfc_enabled", pfc.enabled());
            ev.put("pfc_source", pfc.source());
            out.add(new Finding(id(), Severity.WARNING, Ports.subject(p),
                    "802.3x global pause is on for " + nd.name() + " while PFC is on priorities " + pfc.enabled(), ev,
                    "Turn global pause off and keep PFC: `ethtool -A " + nd.name() + " rx off tx off` (check with `ethtool -a "
                            + nd.name() + "`), and make it persistent."));
        }
        return out;
    }
}
