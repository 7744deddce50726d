package io.fabricd.diagnosis.checks;

import io.fabricd.diagnosis.Check;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.model.finding.Evidence;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Severity;
import io.fabricd.model.finding.Subject;
import io.fabricd.model.probe.ProbeResults;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code bandwidth_low} (warning): the last bandwidth test with a peer in one direction delivered
 * less than bandwidth.min_ratio of what the path can carry. Nothing for a test whose ceiling is
 * unknown. The direction is part of the subject: a link slow both ways is two findings.
 */
public final class BandwidthLow extends Check.Declared {

    public BandwidthLow() {
        super("bandwidth_low");
    }

    @Override
    public List<Finding> evaluate(Inputs in, DiagnosisConfig config) {
        ProbeResults probes = in.probes();
        double minRatio = config.probes().bandwidthMinRatio();
        List<Finding> out = new ArrayList<>();
        for (ProbeResults.Bandwidth r : probes.bandwidth()) {
            Double ratio = r.ratio();
            if (ratio == null || ratio >= minRatio) {
                continue;
            }
            Evidence.Builder ev = Evidence.builder();
            ev.put("bits_per_second", r.bitsPerSecond());
            ev.put("ceiling_bits_per_second", r.ceilingBitsPerSecond());
            ev.put("limit", r.limit());
            ev.put("ratio", ratio);
            ev.put("min_ratio", minRatio);
            ev.put("size", r.size());
            ev.put("qps", r.qps());
            ev.put("seconds", r.seconds());
            ev.put("confirm", "ib_write_bw -d " + r.device() + " -s " + r.size() + " -q " + r.qps() + " -D 5 --report_gbits (and the "
                    + "same without a host on the other end)");
            out.add(new Finding(id(), Severity.WARNING, Subject.peer(r.peer(), r.device()).withDirection(r.direction()),
                    String.format(Locale.ROOT, "%s %s %s: %.1f Gb/s, %.0f%% of the %.1f Gb/s the %s can carry", r.device(),
                            r.direction().equals("tx") ? "to" : "from", r.peer(), r.bitsPerSecond() / 1e9, ratio * 100,
                            r.ceilingBitsPerSecond() / 1e9, r.limit().replace('_', ' ')),
                    ev, "Compare with ib_write_bw on the same ports. Below the ceiling: check the link's error and pause counters "
                            + "(port_errors, pause_storm), PFC and ECN on the priority (pfc_missing), the NICs' PCIe link "
                            + "(pcie_degraded) and NUMA placement of the test (numa_misaffinity); a busy link shares its bandwidth."));
        }
        return out;
    }
}
