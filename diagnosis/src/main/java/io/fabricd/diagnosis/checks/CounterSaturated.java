package io.fabricd.diagnosis.checks;

import io.fabricd.collectors.model.HostModel;
import io.fabricd.collectors.model.RdmaPort;
import io.fabricd.collectors.rdma.CounterWidths;
import io.fabricd.diagnosis.Check;
import io.fabricd.diagnosis.Finding;
import io.fabricd.diagnosis.Severity;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code counter_saturated} (warning): a fixed-width PMA error counter pinned at its maximum
 * (IBA §16.1.3.5: PortCounters saturate and stay), so its rate reads zero and new errors are
 * invisible until it is cleared. Data/packet counters are not error counters and are left out.
 */
public final class CounterSaturated implements Check {

    @Override
    public String id() {
        return "counter_saturated";
    }

    @Override
    public List<Finding> evaluate(HostModel m, HostModel previous) {
        List<Finding> out = new ArrayList<>();
        for (RdmaPort p : m.ports()) {
            for (String c : p.saturated()) {
                if (c.contains("_data") || c.contains("_packets")) {
                    continue;
                }
                int w = CounterWidths.width(c, p.counters());
                Map<String, Object> evidence = new LinkedHashMap<>();
                evidence.put("counter", c);
                evidence.put("value", Long.toUnsignedString(p.counters().get(c)));
                evidence.put("width_bits", w);
                out.add(new Finding(id(), Severity.WARNING, Map.of("device", p.device(), "port", p.port()),
                        c + " on " + p.device() + " port " + p.port() + " is pinned at its " + w + "-bit maximum: new errors are invisible",
                        evidence, "Find the cause of the errors (cable, transceiver: `ibqueryerrors`, `mlxlink`), then clear the "
                                + "port counters as root: `perfquery -R -x " + "<lid> " + p.port() + "` (or `perfquery -R` on the host)."));
            }
        }
        return out;
    }
}
