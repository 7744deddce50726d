package io.fabricd.diagnosis.checks;

import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.diagnosis.Hosts;
import io.fabricd.diagnosis.run.Diagnosis;
import io.fabricd.model.HostModel;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.probe.ProbeResults;
import java.util.List;

/** Probe results as the agent hands them to diagnosis, judged beside a fixture host. */
final class ProbeChecks {
    static final HostModel HOST = Hosts.model("host-a-ib");

    private ProbeChecks() {
    }

    /** A UDP window of 64 B probes with every answered RTT {@code rttMicros}; in rack r1. */
    static ProbeResults.Window window(String peer, int sent, int lost, long rttMicros) {
        Double rtt = sent == lost ? null : rttMicros / 1e6;
        return new ProbeResults.Window(peer, "r1", "udp", 64, null, sent, lost, 0, false, rtt, rtt, null, null);
    }

    static ProbeResults windows(ProbeResults.Window... w) {
        return new ProbeResults(List.of(w), List.of(), List.of());
    }

    static List<Finding> of(ProbeResults probes, String check, DiagnosisConfig config) {
        return Diagnosis.run(HOST, null, null, probes, config).findings().stream().filter(f -> f.check().equals(check)).toList();
    }

    static List<Finding> of(ProbeResults probes, String check) {
        return of(probes, check, DiagnosisConfig.DEFAULT);
    }
}
