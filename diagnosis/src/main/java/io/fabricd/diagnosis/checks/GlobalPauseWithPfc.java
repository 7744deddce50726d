package io.fabricd.diagnosis.checks;

import io.fabricd.collectors.model.HostModel;
import io.fabricd.collectors.model.NetdevInfo;
import io.fabricd.collectors.model.RdmaPort;
import io.fabricd.diagnosis.Check;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.diagnosis.Finding;
import io.fabricd.diagnosis.Severity;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code global_pause_with_pfc} (warning): 802.3x link-level pause on a port that also has PFC.
 * Global pause stops every priority, so one congested class pauses all traffic (and the two fight
 * over the MAC's pause handling). Read from ETHTOOL_GPAUSEPARAM, or from the driver's
 * {@code rx/tx_global_pause} statistics when the parameters were not read.
 */
public final class GlobalPauseWithPfc implements Check {

    @Override
    public String id() {
        return "global_pause_with_pfc";
    }

    @Override
    public List<Finding> evaluate(HostModel m, HostModel previous, DiagnosisConfig config) {
        List<Finding> out = new ArrayList<>();
        for (RdmaPort p : m.ports()) {
            NetdevInfo nd = Ports.netdev(m, p);
            if (!Ports.ethernet(p) || nd == null || nd.dcb() == null || !nd.dcb().supported() || nd.dcb().pfcEnabled().isEmpty()) {
                continue;
            }
            Map<String, Object> ev = new LinkedHashMap<>();
            boolean on;
            if (nd.pause() != null) {
                on = nd.pause().rx() || nd.pause().tx();
                ev.put("pause_rx", nd.pause().rx());
                ev.put("pause_tx", nd.pause().tx());
                ev.put("pause_autoneg", nd.pause().autoneg());
                ev.put("source", "ETHTOOL_GPAUSEPARAM");
            } else {
                // mlx5 creates rx/tx_global_pause only while global pause is on (facts §2.3)
                on = nd.stats().containsKey("rx_global_pause") || nd.stats().containsKey("tx_global_pause");
                ev.put("source", "ethtool -S rx/tx_global_pause present");
            }
            if (!on) {
                continue;
            }
            ev.put("pfc_enabled", nd.dcb().pfcEnabled());
            out.add(new Finding(id(), Severity.WARNING, Ports.subject(p),
                    "802.3x global pause is on for " + nd.name() + " while PFC is on priorities " + nd.dcb().pfcEnabled(), ev,
                    "Turn global pause off and keep PFC: `ethtool -A " + nd.name() + " rx off tx off` (check with `ethtool -a "
                            + nd.name() + "`), and make it persistent."));
        }
        return out;
    }
}
