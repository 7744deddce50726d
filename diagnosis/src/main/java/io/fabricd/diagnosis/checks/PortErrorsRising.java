package io.fabricd.diagnosis.checks;

import io.fabricd.collectors.model.HostModel;
import io.fabricd.collectors.model.RdmaPort;
import io.fabricd.diagnosis.Check;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.diagnosis.DiagnosisConfig.Rate;
import io.fabricd.diagnosis.Finding;
import io.fabricd.diagnosis.Severity;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code port_errors_rising} (warning): link error counters increasing faster than their threshold
 * between the previous collection and this one ({@link DiagnosisConfig#DEFAULT_PORT_ERRORS}: symbol
 * errors above 120/h, link_error_recovery 5/min, port_rcv_errors 10/s, any link_downed,
 * local_link_integrity_errors or excessive_buffer_overrun_errors). A counter saturated in either
 * collection is not judged (counter_saturated reports it), nor one that went down (reset). One
 * finding per port, listing every counter over its threshold.
 */
public final class PortErrorsRising implements Check {

    @Override
    public String id() {
        return "port_errors_rising";
    }

    @Override
    public History history() {
        return History.REQUIRED;
    }

    @Override
    public List<Finding> evaluate(HostModel m, HostModel previous, DiagnosisConfig config) {
        List<Finding> out = new ArrayList<>();
        double seconds = Ports.elapsed(m, previous);
        if (seconds <= 0) {
            return out;
        }
        Map<String, Rate> thresholds = config.portErrorThresholds();
        for (RdmaPort p : m.ports()) {
            RdmaPort before = Ports.in(previous, p).orElse(null);
            if (before == null) {
                continue;
            }
            List<Map<String, Object>> rising = new ArrayList<>();
            for (var t : thresholds.entrySet()) {
                String c = t.getKey();
                boolean hw = !p.counters().containsKey(c);
                Long now = hw ? p.hwCounters().get(c) : p.counters().get(c);
                Long then = hw ? before.hwCounters().get(c) : before.counters().get(c);
                if (p.isSaturated(c) || before.isSaturated(c)) {
                    continue;
                }
                Long delta = Ports.delta(then, now);
                if (delta == null || !t.getValue().exceeded(delta, seconds)) {
                    continue;
                }
                Map<String, Object> e = new LinkedHashMap<>();
                e.put("counter", c);
                e.put("increase", delta);
                e.put("rate", Ports.rate(delta / seconds));
                e.put("threshold", t.getValue().perSecond() == 0 ? "any increase" : t.getValue().text());
                rising.add(e);
            }
            if (rising.isEmpty()) {
                continue;
            }
            Map<String, Object> ev = new LinkedHashMap<>();
            ev.put("interval_seconds", Math.round(seconds * 1000) / 1000.0);
            ev.put("rising", rising);
            String names = String.join(", ", rising.stream().map(e -> e.get("counter") + " +" + e.get("increase")).toList());
            out.add(new Finding(id(), Severity.WARNING, Ports.subject(p),
                    "link errors rising on " + p.device() + " port " + p.port() + ": " + names + " in " + Math.round(seconds) + " s", ev,
                    "A bit error rate above the IBTA 1e-12 limit or link retrains point at the cable, transceiver or switch port: "
                            + "`mlxlink -d <pci> -c -e` (BER, FEC), `ibqueryerrors`, reseat or replace the cable; watch whether it "
                            + "follows the cable or stays with the port."));
        }
        return out;
    }
}
