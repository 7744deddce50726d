package io.fabricd.diagnosis.checks;

import static io.fabricd.diagnosis.checks.ProbeChecks.of;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Severity;
import io.fabricd.model.probe.ProbeResults;
import java.util.List;
import org.junit.jupiter.api.Test;

class BandwidthLowTest {

    private static ProbeResults.Bandwidth result(String peer, String direction, double gbps, Double ceilingGbps, String limit) {
        return new ProbeResults.Bandwidth(peer, "mlx5_0", direction, 65536, 1, gbps * 1e9, ceilingGbps == null ? null : ceilingGbps * 1e9,
                limit, 2);
    }

    private static ProbeResults tests(ProbeResults.Bandwidth... r) {
        return new ProbeResults(List.of(), List.of(), List.of(r));
    }

    @Test
    void aLinkBelowItsShareIsAWarningWithEvidence() {
        List<Finding> f = of(tests(result("node-b", "tx", 61.0, 97.0, "link"),  // 0.63
                result("node-c", "tx", 92.0, 97.0, "link"),                      // 0.95: fine
                result("node-d", "tx", 0.3, null, "unknown")), "bandwidth_low"); // no ceiling: no claim
        assertThat(f).hasSize(1);
        Finding low = f.get(0);
        assertThat(low.severity()).isEqualTo(Severity.WARNING);
        assertThat(low.subject().peer()).isEqualTo("node-b");
        assertThat(low.subject().device()).isEqualTo("mlx5_0");
        assertThat(low.subject().direction()).isEqualTo("tx");
        assertThat(low.summary()).isEqualTo("mlx5_0 to node-b: 61.0 Gb/s, 63% of the 97.0 Gb/s the link can carry");
        assertThat(low.evidence().number("ratio").doubleValue()).isBetween(0.628, 0.630);
        assertThat(low.evidence().number("min_ratio")).isEqualTo(0.8);
        assertThat(low.evidence().has("confirm")).isTrue();
        assertThat(low.remediation()).contains("ib_write_bw");
    }

    @Test
    void bothDirectionsOfASlowLinkAreTwoFindings() {
        assertThat(of(tests(result("node-b", "tx", 61.0, 97.0, "link"), result("node-b", "rx", 50.0, 97.0, "link")), "bandwidth_low"))
                .extracting(x -> x.subject().direction()).containsExactlyInAnyOrder("tx", "rx");
    }

    @Test
    void theShareComesFromTheConfiguration() {
        DiagnosisConfig strict = DiagnosisConfig.DEFAULT.withProbes(new DiagnosisConfig.Probes(0.02, 50, 0.005, 5, 0.97));
        assertThat(of(tests(result("node-c", "tx", 92.0, 97.0, "link")), "bandwidth_low", strict)).hasSize(1);
    }
}
