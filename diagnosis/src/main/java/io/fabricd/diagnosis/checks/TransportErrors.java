package io.fabricd.diagnosis.checks;

import io.fabricd.model.HostModel;
import io.fabricd.model.RdmaPort;
import io.fabricd.model.TransportCounters;
import io.fabricd.diagnosis.Check;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.diagnosis.Rate;
import io.fabricd.model.finding.Evidence;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Severity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code transport_errors}: RDMA transport failures counted by the driver in {@code hw_counters/}
 * ({@link TransportCounters}: retries exceeded, ACK timeouts, sequence errors, out-of-sequence
 * packets, RNR NAKs, error completions, ...).
 * <ul>
 * <li>With the previous collection: each type's rate against its threshold
 *     ({@link DiagnosisConfig#DEFAULT_TRANSPORT_ERRORS}), a warning with the interval it happened
 *     in. One burst of retries exceeded is what a killed or crashed job leaves on every surviving
 *     peer: a finding with its time, never a page; QPs failing across several minutes page through
 *     the FabricTransportRetriesExceeded rule, which sees more than two collections. One finding per
 *     port listing every type over its threshold.</li>
 * <li>Without it (one collection): the non-zero totals since the driver loaded, as info; they say
 *     what happened, not when.</li>
 * </ul>
 * Counters that went down (a driver reload, a counter reset, mlx5's 32-bit queue counters wrapping)
 * are not judged.
 */
public final class TransportErrors implements Check {

    @Override
    public String id() {
        return "transport_errors";
    }

    @Override
    public History history() {
        return History.PARTIAL;
    }

    @Override
    public List<Finding> evaluate(Inputs in, DiagnosisConfig config) {
        HostModel m = in.current();
        HostModel previous = in.previous();
        List<Finding> out = new ArrayList<>();
        double seconds = Ports.elapsed(m, previous);
        Map<String, Rate> thresholds = config.transportErrorThresholds();
        for (RdmaPort p : m.ports()) {
            RdmaPort before = seconds > 0 ? Ports.in(previous, p).orElse(null) : null;
            if (seconds > 0 && before == null) {
                continue; // a port new since the last collection: judged from the next one
            }
            List<Evidence> seen = new ArrayList<>();
            for (var e : p.hwCounters().entrySet()) {
                TransportCounters.Type type = TransportCounters.type(e.getKey());
                if (type == null) {
                    continue;
                }
                Evidence.Builder c = Evidence.builder();
                c.put("type", type.label());
                c.put("counter", e.getKey());
                if (before != null) {
                    Long delta = Ports.delta(before.hwCounters().get(e.getKey()), e.getValue());
                    Rate t = thresholds.get(type.label());
                    if (delta == null || t == null || !t.exceeded(delta, seconds)) {
                        continue;
                    }
                    c.put("increase", delta);
                    c.put("rate", Ports.rate(delta / seconds));
                    c.put("threshold", t.perSecond() == 0 ? "any increase" : t.text());
                } else {
                    if (e.getValue() == 0) {
                        continue;
                    }
                    c.put("total", Long.toUnsignedString(e.getValue()));
                }
                seen.add(c.build());
            }
            if (seen.isEmpty()) {
                continue;
            }
            Evidence.Builder ev = Evidence.builder();
            String list = String.join(", ", seen.stream().map(c -> c.get("counter") + " "
                    + (before != null ? "+" + c.get("increase") : c.get("total"))).toList());
            String summary;
            Severity sev;
            if (before != null) {
                ev.put("interval_seconds", Math.round(seconds * 1000) / 1000.0);
                ev.put("between", previous.collectedAt() + " and " + m.collectedAt());
                ev.objects("rising", seen);
                sev = Severity.WARNING;
                summary = "RDMA transport errors rising on " + p.device() + " port " + p.port() + ": " + list + " in "
                        + Math.round(seconds) + " s";
            } else {
                ev.put("counts", "totals since the driver loaded (one collection: no rate)");
                ev.objects("totals", seen);
                sev = Severity.INFO;
                summary = "RDMA transport errors on " + p.device() + " port " + p.port() + " since the driver loaded: " + list;
            }
            out.add(new Finding(id(), sev, Ports.subject(p), summary, ev, remediation(p)));
        }
        return out;
    }

    private static String remediation(RdmaPort p) {
        String roce = Ports.ethernet(p) ? " On RoCE, lost packets mean the RDMA priority is not lossless: check pfc_missing, "
                + "ecn_disabled and the switch's PFC/ECN configuration for that priority." : "";
        return "Retries exceeded, ACK timeouts, sequence errors and out-of-sequence packets mean packets lost in the fabric: check the "
                + "link (port_errors_rising, `ibqueryerrors`/`ethtool -S`), congestion (pause_storm, buffer discards) and the peer." + roce
                + " RNR NAKs and RNR retries exceeded mean a receiver posts too few receives (the application); remote access and "
                + "invalid request errors are application bugs (rkeys, permissions). `rdma statistic show link " + p.device() + "/"
                + p.port() + "` shows the counters.";
    }
}
