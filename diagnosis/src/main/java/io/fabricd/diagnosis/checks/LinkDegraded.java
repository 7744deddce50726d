package io.fabricd.diagnosis.checks;

import io.fabricd.model.HostModel;
import io.fabricd.model.RdmaDevice;
import io.fabricd.model.RdmaPort;
import io.fabricd.diagnosis.Check;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.model.finding.Evidence;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Severity;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * {@code link_degraded} (warning): an up port running slower than expected. The expectation is
 * {@code diagnosis.link.expected_rate_gbps} when set; otherwise the fastest up sibling: a port of
 * the same HCA model ({@code hca_type}) and link layer on the host. Rates below a sibling mean a
 * lane or speed fell back (4X NDR 400 Gb/s trained as 2X or as HDR 200): a bad cable, transceiver
 * or switch port. Not judged: software devices (rxe reports a meaningless rate), devices with no
 * model, and a port with no sibling when no rate is configured (no static expectations: gpud#295).
 */
public final class LinkDegraded extends Check.Declared {

    public LinkDegraded() {
        super("link_degraded");
    }

    @Override
    public List<Finding> evaluate(Inputs in, DiagnosisConfig config) {
        HostModel m = in.current();
        List<Finding> out = new ArrayList<>();
        for (RdmaDevice d : m.devices()) {
            if (d.hcaType() == null || d.parent() != null) {
                continue;
            }
            for (RdmaPort p : d.ports()) {
                if (!p.up() || p.rate() == null || p.rate().bytesPerSecond() <= 0) {
                    continue;
                }
                double gbps = p.rate().bytesPerSecond() * 8 / 1e9;
                Evidence.Builder ev = Evidence.builder();
                ev.put("rate", p.rate().raw());
                if (config.link().expectedRateGbps() != null) {
                    if (gbps + 1e-9 < config.link().expectedRateGbps()) {
                        ev.put("expected_rate_gbps", config.link().expectedRateGbps());
                        ev.put("expected_because", "config (diagnosis.link.expected_rate_gbps)");
                        out.add(finding(p, gbps + " Gb/s, expected " + config.link().expectedRateGbps() + " Gb/s", ev));
                    }
                    continue;
                }
                RdmaPort best = null;
                for (RdmaDevice od : m.devices()) {
                    if (!Objects.equals(od.hcaType(), d.hcaType()) || od.parent() != null) {
                        continue;
                    }
                    for (RdmaPort o : od.ports()) {
                        if (o == p || !o.up() || o.rate() == null || !Objects.equals(o.linkLayer(), p.linkLayer())) {
                            continue;
                        }
                        if (best == null || o.rate().bytesPerSecond() > best.rate().bytesPerSecond()) {
                            best = o;
                        }
                    }
                }
                if (best != null && best.rate().bytesPerSecond() > p.rate().bytesPerSecond()) {
                    ev.put("sibling", best.device() + "/" + best.port());
                    ev.put("sibling_rate", best.rate().raw());
                    ev.put("hca_type", d.hcaType());
                    out.add(finding(p, p.rate().raw() + " while " + best.device() + " port " + best.port() + " (same model) runs "
                            + best.rate().raw(), ev));
                }
            }
        }
        return out;
    }

    private Finding finding(RdmaPort p, String what, Evidence.Builder ev) {
        return new Finding(id(), Severity.WARNING, Ports.subject(p), p.device() + " port " + p.port() + " is degraded: " + what, ev,
                "Check cable and transceiver and the switch port (`mlxlink -d <pci> -m -c`, `ibportstate`, `ethtool "
                        + (p.netdev() == null ? "<netdev>" : p.netdev()) + "`); reseat or replace the cable, then re-check `ibstat`.");
    }
}
