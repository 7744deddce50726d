package io.fabricd.diagnosis.checks;

import io.fabricd.model.HostModel;
import io.fabricd.model.RdmaDevice;
import io.fabricd.model.RdmaPort;
import io.fabricd.model.TransportCounters;
import io.fabricd.diagnosis.Check;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.diagnosis.Rate;
import io.fabricd.model.finding.Evidence;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Severity;
import io.fabricd.model.finding.Subject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

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
 * Every driver's counters by the same types, port by port; a device's own {@code hw_counters/} (mlx4
 * counts its queue errors per device) are judged once for the device, leaving out names its ports
 * also count. Counters that went down (a driver reload, a counter reset, mlx5's 32-bit queue
 * counters wrapping) are not judged.
 */
public final class TransportErrors extends Check.Declared {

    public TransportErrors() {
        super("transport_errors", History.PARTIAL);
    }

    @Override
    public List<Finding> evaluate(Inputs in, DiagnosisConfig config) {
        HostModel m = in.current();
        HostModel previous = in.previous();
        double seconds = Ports.elapsed(m, previous);
        Map<String, Rate> thresholds = config.transportErrorThresholds();
        List<Finding> out = new ArrayList<>();
        for (RdmaDevice d : m.devices()) {
            for (RdmaPort p : d.ports()) {
                RdmaPort before = seconds > 0 ? Ports.in(previous, p).orElse(null) : null;
                if (seconds > 0 && before == null) {
                    continue; // a port new since the last collection: judged from the next one
                }
                List<Evidence> seen = judge(p.hwCounters(), before == null ? null : before.hwCounters(), seconds, thresholds);
                if (!seen.isEmpty()) {
                    out.add(finding(Ports.subject(p), p.device() + " port " + p.port(), seen, before != null, seconds, m, previous,
                            remediation(Ports.ethernet(p), "`rdma statistic show link " + p.device() + "/" + p.port() + "`")));
                }
            }
            // mlx4 counts its queue errors per device (per port too only with the firmware's per-port diagnostic
            // counters): a name no port of the device has is the device's own, judged once for all its ports
            SortedMap<String, Long> own = deviceOwn(d);
            RdmaDevice before = seconds > 0 ? previous.device(d.name()).orElse(null) : null;
            if (own.isEmpty() || seconds > 0 && before == null) {
                continue;
            }
            List<Evidence> seen = judge(own, before == null ? null : before.hwCounters(), seconds, thresholds);
            if (!seen.isEmpty()) {
                out.add(finding(Subject.device(d.name()), d.name() + " (its device-wide counters, every port)", seen, before != null,
                        seconds, m, previous, remediation(d.ports().stream().anyMatch(Ports::ethernet),
                                "`grep . /sys/class/infiniband/" + d.name() + "/hw_counters/*`")));
            }
        }
        return out;
    }

    /** The transport counters over their threshold since {@code before} (null: one collection, the non-zero totals). */
    private static List<Evidence> judge(SortedMap<String, Long> now, SortedMap<String, Long> before, double seconds,
            Map<String, Rate> thresholds) {
        List<Evidence> seen = new ArrayList<>();
        for (var e : now.entrySet()) {
            TransportCounters.Type type = TransportCounters.type(e.getKey());
            if (type == null) {
                continue;
            }
            Evidence.Builder c = Evidence.builder();
            c.put("type", type.label());
            c.put("counter", e.getKey());
            if (before != null) {
                Long delta = Ports.delta(before.get(e.getKey()), e.getValue());
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
        return seen;
    }

    /** The device-level {@code hw_counters/} that none of its ports has. */
    private static SortedMap<String, Long> deviceOwn(RdmaDevice d) {
        SortedMap<String, Long> own = new TreeMap<>(d.hwCounters());
        for (RdmaPort p : d.ports()) {
            own.keySet().removeAll(p.hwCounters().keySet());
        }
        return own;
    }

    private Finding finding(Subject subject, String where, List<Evidence> seen, boolean rates, double seconds, HostModel m,
            HostModel previous, String remediation) {
        Evidence.Builder ev = Evidence.builder();
        String list = String.join(", ", seen.stream().map(c -> c.get("counter") + " "
                + (rates ? "+" + c.get("increase") : c.get("total"))).toList());
        if (rates) {
            ev.put("interval_seconds", Math.round(seconds * 1000) / 1000.0);
            ev.put("between", previous.collectedAt() + " and " + m.collectedAt());
            ev.objects("rising", seen);
            return new Finding(id(), Severity.WARNING, subject, "RDMA transport errors rising on " + where + ": " + list
                    + " in " + Math.round(seconds) + " s", ev, remediation);
        }
        ev.put("counts", "totals since the driver loaded (one collection: no rate)");
        ev.objects("totals", seen);
        return new Finding(id(), Severity.INFO, subject, "RDMA transport errors on " + where + " since the driver loaded: "
                + list, ev, remediation);
    }

    private static String remediation(boolean ethernet, String show) {
        String roce = ethernet ? " On RoCE, lost packets mean the RDMA priority is not lossless: check pfc_missing, "
                + "ecn_disabled and the switch's PFC/ECN configuration for that priority." : "";
        return "Retries exceeded, ACK timeouts, sequence errors and out-of-sequence packets mean packets lost in the fabric: check the "
                + "link (port_errors_rising, `ibqueryerrors`/`ethtool -S`), congestion (pause_storm, buffer discards) and the peer." + roce
                + " RNR NAKs and RNR retries exceeded mean a receiver posts too few receives (the application); remote access and "
                + "invalid request errors are application bugs (rkeys, permissions). " + show + " shows the counters.";
    }
}
