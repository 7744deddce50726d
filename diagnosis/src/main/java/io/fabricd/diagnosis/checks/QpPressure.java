package io.fabricd.diagnosis.checks;

import io.fabricd.model.HostModel;
import io.fabricd.model.QpSummary;
import io.fabricd.diagnosis.Check;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.model.finding.Evidence;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Subject;
import io.fabricd.model.finding.Severity;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code qp_pressure} (warning): queue pairs in use above {@code diagnosis.qp.max_share} (0.8) of
 * the device's {@code max_qp} (connection-per-peer transports hit the limit at scale), or, with
 * the previous collection, QPs in the ERR state growing by {@code diagnosis.qp.err_growth} (1) or
 * more: applications are seeing fatal completions and not cleaning up; or {@code diagnosis.qp.max_err}
 * (32) QPs in ERR at once, which one collection can show. QP counts are those RDMA
 * netlink shows fabricd (its PID namespace; run in the host PID namespace to see all).
 */
public final class QpPressure extends Check.Declared {

    public QpPressure() {
        super("qp_pressure", History.PARTIAL);
    }

    @Override
    public List<Finding> evaluate(Inputs in, DiagnosisConfig config) {
        HostModel m = in.current();
        HostModel previous = in.previous();
        List<Finding> out = new ArrayList<>();
        boolean rates = Ports.elapsed(m, previous) > 0;
        for (QpSummary q : m.qps()) {
            int inUse = q.byState().values().stream().mapToInt(Integer::intValue).sum();
            int err = q.byState().getOrDefault("ERR", 0);
            Evidence.Builder ev = Evidence.builder();
            ev.put("qps", inUse);
            ev.put("max_qp", q.maxQp());
            ev.put("by_state", Evidence.numbers(q.byState()));
            List<String> reasons = new ArrayList<>();
            if (q.maxQp() != null && q.maxQp() > 0 && inUse > config.qp().maxShare() * q.maxQp()) {
                reasons.add(inUse + " QPs in use of max_qp " + q.maxQp() + " (above " + Math.round(config.qp().maxShare() * 100) + " %)");
            }
            if (err >= config.qp().maxErr()) {
                reasons.add(err + " QPs sit in the ERR state (reported from " + config.qp().maxErr() + ")");
            }
            if (rates) {
                QpSummary before = previous.qps().stream().filter(x -> x.device().equals(q.device())).findFirst().orElse(null);
                int errBefore = before == null ? -1 : before.byState().getOrDefault("ERR", 0);
                if (errBefore >= 0 && err - errBefore >= config.qp().errGrowth()) {
                    ev.put("err_before", errBefore);
                    reasons.add("QPs in ERR grew from " + errBefore + " to " + err + " since the previous collection");
                }
            }
            if (reasons.isEmpty()) {
                continue;
            }
            ev.texts("reasons", reasons);
            out.add(new Finding(id(), Severity.WARNING, Subject.device(q.device()), q.device() + ": " + reasons.get(0), ev,
                    "See which processes hold them: `rdma resource show qp link " + q.device() + "/1` (state ERR: the application got a "
                            + "fatal completion such as retry exceeded; check hw_counters local_ack_timeout_err and the link). Near max_qp: "
                            + "use fewer connections per peer (UD, DC, or NCCL_IB_QPS_PER_CONNECTION)."));
        }
        return out;
    }
}
