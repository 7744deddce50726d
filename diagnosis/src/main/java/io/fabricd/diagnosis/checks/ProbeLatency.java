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

/**
 * {@code probe_latency} (warning): over the window, the p99 RTT to a peer above
 * probe.latency_threshold, or its p50 more than {@link DiagnosisConfig.Probes#outlierFactor()}
 * times the median p50 of all peers at the same transport and size (with at least 3 peers): far
 * above its peers. One finding per peer and local device.
 */
public final class ProbeLatency extends Check.Declared {

    public ProbeLatency() {
        super("probe_latency");
    }

    @Override
    public List<Finding> evaluate(Inputs in, DiagnosisConfig config) {
        ProbeResults probes = in.probes();
        DiagnosisConfig.Probes t = config.probes();
        List<Finding> out = new ArrayList<>();
        for (ProbeResults.Window w : probes.windows()) {
            if (w.p50Seconds() == null) {
                continue; // nothing answered: probe_loss's
            }
            double[] peers = probes.windows().stream()
                    .filter(o -> o.p50Seconds() != null && o.transport().equals(w.transport()) && o.size() == w.size())
                    .mapToDouble(ProbeResults.Window::p50Seconds).sorted().toArray();
            double median = peers.length >= 3 ? peers[peers.length / 2] : Double.NaN;
            double p50 = w.p50Seconds();
            double p99 = w.p99Seconds();
            boolean slow = p99 > t.latencyThresholdSeconds();
            boolean outlier = !Double.isNaN(median) && p50 > t.outlierFactor() * median;
            if (!slow && !outlier) {
                continue;
            }
            Evidence.Builder ev = Evidence.builder();
            ev.put("peer", w.peer());
            ev.put("transport", w.transport());
            ev.put("size", w.size());
            ev.put("p50_seconds", p50);
            ev.put("p99_seconds", p99);
            ev.put("threshold_p99_seconds", t.latencyThresholdSeconds());
            if (!Double.isNaN(median)) {
                ev.put("median_p50_of_peers_seconds", median);
            }
            out.add(new Finding(id(), Severity.WARNING, Subject.peer(w.peer(), w.localDevice()),
                    (slow ? "p99 RTT " + Math.round(p99 * 1e6) + " µs" : "p50 RTT " + Math.round(p50 * 1e6) + " µs, "
                            + Math.round(p50 / median * 10) / 10.0 + "× its peers' median,") + " to " + w.peer() + " ("
                            + w.transport() + ", " + w.size() + " B)", ev,
                    "Compare with other peers of the same rack: one slow peer points at that host (CPU, PCIe, pause frames), all peers "
                            + "of a rack at its ToR or the spine; check PFC pause time (fabric_pfc_pause_seconds_total) along the path."));
        }
        return ProbeVerdicts.mostSevere(out);
    }
}
