package io.fabricd.diagnosis.checks;

import io.fabricd.model.HostModel;
import io.fabricd.model.RdmaPort;
import io.fabricd.model.CounterWidths;
import io.fabricd.diagnosis.Check;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.model.finding.Evidence;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Severity;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code counter_saturated} (warning): a fixed-width PMA error counter pinned at its maximum
 * (IBA §16.1.3.5: PortCounters saturate and stay), so its rate reads zero and new errors are
 * invisible until it is cleared. Data, packet and congestion ({@code port_xmit_wait}) counters are
 * not error counters and are left out ({@link CounterWidths#kind}).
 * One finding per port, listing every pinned counter.
 */
public final class CounterSaturated implements Check {

    @Override
    public String id() {
        return "counter_saturated";
    }

    @Override
    public List<Finding> evaluate(Inputs in, DiagnosisConfig config) {
        HostModel m = in.current();
        List<Finding> out = new ArrayList<>();
        for (RdmaPort p : m.ports()) {
            List<Evidence> pinned = new ArrayList<>();
            for (String c : p.saturated()) {
                if (CounterWidths.kind(c) != CounterWidths.Kind.ERROR) {
                    continue; // a pinned data, packet or congestion counter hides no error
                }
                Evidence.Builder e = Evidence.builder();
                e.put("counter", c);
                e.put("value", Long.toUnsignedString(p.counters().get(c)));
                e.put("width_bits", CounterWidths.width(c, p.counters()));
                pinned.add(e.build());
            }
            if (pinned.isEmpty()) {
                continue;
            }
            String names = String.join(", ", pinned.stream().map(e -> e.text("counter")).toList());
            out.add(new Finding(id(), Severity.WARNING, Ports.subject(p),
                    names + " on " + p.device() + " port " + p.port() + (pinned.size() == 1 ? " is" : " are")
                            + " pinned at the counter's maximum: new errors are invisible",
                    Evidence.builder().objects("saturated", pinned), "Find the cause of the errors (cable, transceiver: `ibqueryerrors`, `mlxlink`), then clear the "
                            + "port counters as root: `perfquery -R` on the host (or `perfquery -R <lid> " + p.port() + "`)."));
        }
        return out;
    }
}
