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
 * {@code ecn_disabled} (warning): DCQCN cannot work on the RDMA priority. Evidence, whichever the
 * host shows:
 * <ul>
 * <li>MLNX_OFED's {@code ecn/roce_np/enable/<prio>} or {@code ecn/roce_rp/enable/<prio>} is 0
 *     (notification point: no CNPs sent for ECN-marked packets; reaction point: CNPs do not slow
 *     the sender);</li>
 * <li>upstream kernels have no such knob; the counters tell instead: ECN-marked RoCE packets
 *     arrive ({@code np_ecn_marked_roce_packets}) but no CNP is sent ({@code np_cnp_sent}), or CNPs
 *     are ignored ({@code rp_cnp_ignored}: "should not raise if RoCE Congestion Control was
 *     enabled"). With the previous collection these are judged on the increase over the interval;
 *     one-shot, on the totals since the driver loaded (with congestion control on, both stay 0).</li>
 * </ul>
 */
public final class EcnDisabled extends Check.Declared {

    public EcnDisabled() {
        super("ecn_disabled", History.PARTIAL);
    }

    @Override
    public List<Finding> evaluate(Inputs in, DiagnosisConfig config) {
        HostModel m = in.current();
        HostModel previous = in.previous();
        List<Finding> out = new ArrayList<>();
        boolean rates = Ports.elapsed(m, previous) > 0;
        for (RdmaPort p : m.ports()) {
            if (!Ports.ethernet(p) || !p.inService()) {
                continue;
            }
            NetdevInfo nd = Ports.netdev(m, p);
            RdmaPriority rp = RdmaPriority.of(m, p, nd, config);
            List<String> reasons = new ArrayList<>();
            Evidence.Builder ev = Evidence.builder();
            if (nd != null && Boolean.FALSE.equals(nd.ecnNp().get(rp.priority()))) {
                reasons.add("ECN notification point off (ecn/roce_np/enable/" + rp.priority() + " = 0)");
            }
            if (nd != null && Boolean.FALSE.equals(nd.ecnRp().get(rp.priority()))) {
                reasons.add("ECN reaction point off (ecn/roce_rp/enable/" + rp.priority() + " = 0)");
            }
            if (nd != null && (!nd.ecnNp().isEmpty() || !nd.ecnRp().isEmpty())) {
                ev.put("ecn_np_enabled", nd.ecnNp().get(rp.priority()));
                ev.put("ecn_rp_enabled", nd.ecnRp().get(rp.priority()));
            }
            RdmaPort before = rates ? Ports.in(previous, p).orElse(null) : null;
            Long marked = value(p, before, "np_ecn_marked_roce_packets");
            Long cnpSent = value(p, before, "np_cnp_sent");
            Long ignored = value(p, before, "rp_cnp_ignored");
            Long handled = value(p, before, "rp_cnp_handled");
            String span = before != null ? " in the last " + Math.round(Ports.elapsed(m, previous)) + " s" : " since the driver loaded";
            if (marked != null && cnpSent != null && marked > 0 && cnpSent == 0) {
                reasons.add(marked + " ECN-marked RoCE packets arrived but no CNP was sent" + span);
            }
            if (ignored != null && ignored > 0) {
                reasons.add(ignored + " CNPs ignored" + span + " (the reaction point is not slowing down)");
            }
            if (reasons.isEmpty()) {
                continue;
            }
            ev.texts("reasons", reasons);
            ev.put("rdma_priority", rp.priority());
            ev.put("priority_rule", rp.rule());
            if (marked != null) {
                ev.put("np_ecn_marked_roce_packets", marked);
            }
            if (cnpSent != null) {
                ev.put("np_cnp_sent", cnpSent);
            }
            if (ignored != null) {
                ev.put("rp_cnp_ignored", ignored);
            }
            if (handled != null) {
                ev.put("rp_cnp_handled", handled);
            }
            ev.put("counts", before != null ? "increase over the interval" : "totals since the driver loaded");
            String nd0 = p.netdev() == null ? "<netdev>" : p.netdev();
            out.add(new Finding(id(), Severity.WARNING, Ports.subject(p, rp.priority()),
                    "DCQCN congestion control is not working on priority " + rp.priority() + " of " + p.device() + " port " + p.port()
                            + ": " + reasons.get(0), ev,
                    "Enable ECN on the RDMA priority at both points: MLNX_OFED `echo 1 > /sys/class/net/" + nd0 + "/ecn/roce_np/enable/"
                            + rp.priority() + "` and `.../roce_rp/enable/" + rp.priority() + "`; upstream drivers: the firmware's "
                            + "congestion-control settings (`mlxconfig`, ROCE_CC_PRIO_MASK). Check that switches mark ECN on that queue."));
        }
        return out;
    }

    /** The hw counter's increase over the interval (with a previous port) or its total; null when unknown or reset. */
    private static Long value(RdmaPort p, RdmaPort before, String counter) {
        Long now = p.hwCounters().get(counter);
        if (before == null) {
            return now;
        }
        return Ports.delta(before.hwCounters().get(counter), now);
    }
}
