package io.fabricd.diagnosis.checks;

import io.fabricd.model.DcbState;
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
 * {@code pfc_missing}: a RoCE port whose RDMA priority ({@link RdmaPriority}) has no PFC, so RDMA
 * traffic is lossy and every congestion drop costs a go-back-N retransmission. The PFC state comes
 * from DCB (netlink, or the snapshot's side-car) or, when that is not known, from what the driver's
 * statistics prove (mlx5 lists per-priority pause counters only for priorities with PFC on:
 * {@link io.fabricd.model.DriverStats#pfcEnabled}). Critical when PFC is off on every
 * priority, or when the priority came from config, the rdma_cm DSCP mapping or the traffic itself;
 * a warning when only the common default (3) was left to go by and PFC is on elsewhere (the port
 * may be configured for another priority that is idle). A netdev that has no DCB support gives an
 * info finding; one whose PFC state nothing shows gives none: unknown is not a claim.
 */
public final class PfcMissing extends Check.Declared {

    public PfcMissing() {
        super("pfc_missing");
    }

    @Override
    public List<Finding> evaluate(Inputs in, DiagnosisConfig config) {
        HostModel m = in.current();
        List<Finding> out = new ArrayList<>();
        for (RdmaPort p : m.ports()) {
            NetdevInfo nd = Ports.netdev(m, p);
            if (!Ports.roce(m, p) || nd == null || !p.inService()) {
                continue;
            }
            DcbState dcb = nd.dcb();
            if (dcb != null && !dcb.supported()) {
                Evidence.Builder why = Evidence.builder();
                why.put("dcb_supported", false);
                if (nd.driver() != null) {
                    why.put("driver", nd.driver()); // a virtual netdev (veth) has no driver link: left out, not "null"
                }
                out.add(new Finding(id(), Severity.INFO, Ports.subject(p), "PFC cannot be judged on " + nd.name() + ": "
                        + nd.name() + " has no DCB support (veth, virtio, or a driver without DCB)",
                        why,
                        "Nothing to do for a test or software RoCE port; on a RoCE NIC check `dcb pfc show dev " + nd.name() + "`."));
                continue;
            }
            NetdevInfo.Pfc pfc = nd.pfc().orElse(null);
            if (pfc == null) {
                continue; // nothing shows the PFC state: unknown, no claim
            }
            RdmaPriority rp = RdmaPriority.of(m, p, nd, config);
            if (pfc.enabled().contains(rp.priority())) {
                continue;
            }
            boolean allOff = pfc.enabled().isEmpty();
            Severity sev = allOff || !rp.rule().equals("default") ? Severity.CRITICAL : Severity.WARNING;
            Evidence.Builder ev = Evidence.builder();
            ev.numbers("pfc_enabled", pfc.enabled());
            ev.put("pfc_source", pfc.source().equals("dcb") ? "DCB (pfc_en)"
                    : "ethtool -S: " + (nd.driver() != null ? nd.driver() : "the driver") + " lists rx/tx_prioN_pause only for priorities with PFC on, and lists "
                    + (allOff ? "none" : "only these"));
            if (dcb != null) {
                ev.put("pfc_cap", dcb.pfcCap());
            }
            ev.put("rdma_priority", rp.priority());
            ev.put("priority_rule", rp.rule());
            ev.put("priority_detail", rp.detail());
            ev.put("trust", nd.trust());
            Long discards = nd.stats().get("rx_discards_phy");
            if (discards != null) {
                ev.put("rx_discards_phy", Long.toUnsignedString(discards));
            }
            String summary = allOff
                    ? "PFC is off on every priority of " + nd.name() + ": RoCE traffic class " + rp.priority() + " is lossy"
                    : "RoCE traffic class " + rp.priority() + " has no PFC on " + nd.name() + " (PFC on " + pfc.enabled() + ")";
            out.add(new Finding(id(), sev, Ports.subject(p, rp.priority()), summary, ev,
                    "Enable PFC on priority " + rp.priority() + " on the host and on the switch port: `dcb pfc set dev " + nd.name()
                            + " prio-pfc " + rp.priority() + ":on` (or `mlnx_qos -i " + nd.name() + " --pfc " + pfcMask(rp.priority())
                            + "`), and make it persistent (NetworkManager/netplan hook or the NIC firmware's DCBX)."
                            + (rp.rule().equals("default") ? " If RDMA uses another priority, set diagnosis.roce.priority." : "")));
        }
        return out;
    }

    private static String pfcMask(int prio) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            sb.append(i == 0 ? "" : ",").append(i == prio ? '1' : '0');
        }
        return sb.toString();
    }
}
