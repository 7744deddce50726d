package io.fabricd.diagnosis.checks;

import io.fabricd.model.HostModel;
import io.fabricd.model.NetdevInfo;
import io.fabricd.model.PortAttrs;
import io.fabricd.model.RdmaDevice;
import io.fabricd.model.RdmaPort;
import io.fabricd.diagnosis.Check;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.model.finding.Evidence;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Value;
import io.fabricd.model.finding.Severity;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * {@code mtu_mismatch} (warning), one finding per port:
 * <ul>
 * <li>a RoCE port whose active MTU is below its max MTU because the netdev MTU is too small for the
 *     max (mlx5 needs netdev MTU ≥ IB MTU + 96, rxe + 80: 4192 / 4176 for 4096; docs/spec/host-facts.md §3.5); also
 *     when the netdev MTU is not known, if verbs said both MTUs: on RoCE the kernel derives the
 *     active MTU from the netdev MTU, so the pair proves the netdev MTU is too small;</li>
 * <li>a port whose active MTU is below that of other up ports of the same link layer on the host
 *     (peers pick the path MTU from their own port, so large transfers from the bigger side stall).</li>
 * </ul>
 * Cross-host comparison comes with the probes' peer exchange. Ports without a known MTU are not judged.
 */
public final class MtuMismatch extends Check.Declared {

    public MtuMismatch() {
        super("mtu_mismatch");
    }

    @Override
    public List<Finding> evaluate(Inputs in, DiagnosisConfig config) {
        HostModel m = in.current();
        List<Finding> out = new ArrayList<>();
        for (RdmaDevice d : m.devices()) {
            for (RdmaPort p : d.ports()) {
                PortAttrs a = m.portAttrs(p.device(), p.port()).orElse(null);
                if (a == null || a.activeMtu() == null || a.activeMtu() <= 0 || !p.inService()) {
                    continue;
                }
                NetdevInfo nd = Ports.netdev(m, p);
                Evidence.Builder ev = Evidence.builder();
                ev.put("active_mtu", a.activeMtu());
                ev.put("max_mtu", a.maxMtu());
                ev.put("mtu_source", a.mtuSource());
                int overhead = d.parent() != null ? 80 : 96;
                if (Ports.ethernet(p) && nd != null && nd.mtu() != null && a.maxMtu() != null && a.activeMtu() < a.maxMtu()
                        && nd.mtu() < a.maxMtu() + overhead) {
                    int needed = a.maxMtu() + overhead;
                    ev.put("netdev_mtu", nd.mtu());
                    ev.put("netdev_mtu_needed", needed);
                    out.add(new Finding(id(), Severity.WARNING, Ports.subject(p),
                            "netdev MTU " + nd.mtu() + " of " + nd.name() + " limits RoCE active MTU to " + a.activeMtu()
                                    + " (port supports " + a.maxMtu() + ")", ev,
                            "Raise the MTU of " + nd.name() + " to at least " + needed + " (NVIDIA: 4200 gives active MTU 4096; 9000 "
                                    + "works too) on every host of the fabric and keep the switch ports above it: `ip link set " + nd.name()
                                    + " mtu " + (needed <= 4200 ? 4200 : needed) + "`, persistent in the network config."));
                    continue;
                }
                if (Ports.ethernet(p) && (nd == null || nd.mtu() == null) && "verbs".equals(a.mtuSource()) && a.maxMtu() != null
                        && a.activeMtu() < a.maxMtu()) {
                    int needed = a.maxMtu() + overhead;
                    String name = p.netdev() != null ? p.netdev() : "the port's netdev";
                    ev.put("netdev_mtu", (Value) null);
                    ev.put("netdev_mtu_below", a.activeMtu() * 2 + overhead);
                    ev.put("netdev_mtu_needed", needed);
                    out.add(new Finding(id(), Severity.WARNING, Ports.subject(p),
                            "RoCE active MTU " + a.activeMtu() + " of " + p.device() + " port " + p.port() + " is below its max MTU "
                                    + a.maxMtu() + ": the MTU of " + name + " is below " + (a.activeMtu() * 2 + overhead), ev,
                            "Raise the MTU of " + name + " to at least " + needed + " (NVIDIA: 4200 gives active MTU 4096) on every host "
                                    + "of the fabric and keep the switch ports above it: `ip link set <netdev> mtu 4200`, persistent in the "
                                    + "network config."));
                    continue;
                }
                if (!p.up()) {
                    continue;
                }
                int best = 0;
                String bestPort = null;
                for (RdmaPort o : m.ports()) {
                    PortAttrs oa = m.portAttrs(o.device(), o.port()).orElse(null);
                    if (o == p || !o.up() || oa == null || oa.activeMtu() == null
                            || !Objects.equals(o.linkLayer(), p.linkLayer())) {
                        continue;
                    }
                    if (oa.activeMtu() > best) {
                        best = oa.activeMtu();
                        bestPort = o.device() + "/" + o.port();
                    }
                }
                if (best > a.activeMtu()) {
                    ev.put("sibling", bestPort);
                    ev.put("sibling_active_mtu", best);
                    if (nd != null) {
                        ev.put("netdev_mtu", nd.mtu());
                    }
                    out.add(new Finding(id(), Severity.WARNING, Ports.subject(p),
                            "active MTU " + a.activeMtu() + " of " + p.device() + " port " + p.port() + " is below " + best + " of "
                                    + bestPort + " (same link layer, same host)", ev,
                            "Make the MTUs match: on InfiniBand the subnet manager's partition MTU (`ibv_devinfo`, opensm "
                                    + "partitions.conf mtu=5 for 4096); on RoCE the netdev MTU and the switch port MTU."));
                }
            }
        }
        return out;
    }
}
