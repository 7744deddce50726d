package io.fabricd.diagnosis.checks;

import io.fabricd.diagnosis.Check;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.model.HostModel;
import io.fabricd.model.Neighbor;
import io.fabricd.model.NetdevInfo;
import io.fabricd.model.RdmaPort;
import io.fabricd.model.finding.Evidence;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Severity;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code neighbor_speed_below_host} (warning): the switch port a netdev is cabled to announces, in its
 * LLDP 802.3 MAC/PHY TLV, an operational MAU type whose speed is below the netdev's own speed. Both ends
 * of one cable should say the same: the switch port is set (or broken out) for less, or the announcement
 * comes from another port than the one the cable reaches. Only a stable neighbour ({@link Neighbor#stable()})
 * that names a MAU type of one speed, on a netdev whose speed is known, is judged; no LLDP, no MAU
 * type, a changing neighbour or an unknown host speed is no claim.
 */
public final class NeighborSpeedBelowHost extends Check.Declared {

    public NeighborSpeedBelowHost() {
        super("neighbor_speed_below_host");
    }

    @Override
    public List<Finding> evaluate(Inputs in, DiagnosisConfig config) {
        List<Finding> out = new ArrayList<>();
        HostModel m = in.current();
        for (RdmaPort p : m.ports()) {
            NetdevInfo nd = Ports.netdev(m, p);
            Neighbor n = nd == null ? null : Neighbors.stable(m, nd.name()).orElse(null);
            if (n == null || n.speedMbps() == null || nd.speedMbps() == null || nd.speedMbps() <= n.speedMbps()) {
                continue;
            }
            Evidence.Builder ev = Evidence.builder();
            ev.put("host_speed_mbps", nd.speedMbps());
            ev.put("neighbor_speed_mbps", n.speedMbps());
            ev.put("neighbor_mau_type", n.mauType());
            Neighbors.evidence(ev, m, nd.name());
            String sw = n.words();
            String port = n.switchPort() == null ? "<port>" : n.switchPort();
            out.add(new Finding(id(), Severity.WARNING, Ports.subject(p),
                    sw + " announces " + gbps(n.speedMbps()) + " (" + n.mauType() + "), below " + nd.name() + "'s " + gbps(nd.speedMbps()),
                    ev,
                    "The two ends of one cable disagree on its speed: the switch port is set or broken out for less than the NIC, or "
                            + "the announcement comes from another port than the one this cable reaches (patching). Check the port's speed "
                            + "and breakout on " + sw + ": SONiC `show interfaces status " + port + "`; Cumulus (NVUE) `nv show interface "
                            + port + " link`; Arista EOS `show interfaces " + port + " status`; NVIDIA Onyx `show interfaces ethernet "
                            + port + "`; and on the host `ethtool " + nd.name() + "`."));
        }
        return out;
    }

    private static String gbps(long mbps) {
        return mbps % 1000 == 0 ? mbps / 1000 + " Gb/s" : mbps + " Mb/s";
    }
}
