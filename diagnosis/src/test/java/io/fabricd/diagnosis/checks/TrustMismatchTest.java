package io.fabricd.diagnosis.checks;

import io.fabricd.diagnosis.Plain;
import static io.fabricd.diagnosis.Hosts.model;
import static io.fabricd.diagnosis.Hosts.of;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.diagnosis.Configs;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.diagnosis.Hosts;
import io.fabricd.model.finding.Severity;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TrustMismatchTest {
    static final String CHECK = "trust_mismatch";

    @Test
    void theOddPortOutAgainstItsSiblings() {
        // host E: mlx5_0 trusts pcp (MLNX_OFED qos/trust), mlx5_1 and mlx5_2 dscp (DSCP APP entries)
        assertThat(of(model("host-e-roce-variants"), CHECK)).singleElement().satisfies(x -> {
            assertThat(Plain.subject(x)).containsEntry("device", "mlx5_0");
            assertThat(x.severity()).isEqualTo(Severity.WARNING);
            assertThat(Plain.evidence(x)).containsEntry("trust", "pcp").containsEntry("expected", "dscp")
                    .containsEntry("trust_source", "qos/trust");
            assertThat(Plain.evidence(x).get("expected_because").toString()).contains("2 of the host's 2 other RoCE ports with a known trust mode trust dscp");
        });
    }

    @Test
    void consistentHostsAreNotFindings(@TempDir Path tmp) {
        assertThat(of(model("host-b-roce"), CHECK)).isEmpty();
        assertThat(of(Hosts.model(Hosts.demo(tmp.resolve("demo"))), CHECK)).isEmpty();
        assertThat(of(model("host-c-rxe"), CHECK)).isEmpty(); // trust unknown: not judged
    }

    @Test
    void dscpMarkedTrafficOnAPcpPort(@TempDir Path tmp) {
        Path e = Hosts.copy("host-e-roce-variants", tmp.resolve("e"));
        Hosts.write(e, "sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos", "106\n");
        assertThat(of(Hosts.model(e), CHECK)).singleElement()
                .satisfies(x -> assertThat(Plain.evidence(x).get("expected_because").toString()).contains("default_roce_tos 106"));
    }

    @Test
    void configuredTrustWins() {
        DiagnosisConfig c = Configs.roce(new DiagnosisConfig.Roce(null, "pcp"));
        assertThat(of(model("host-b-roce"), null, c, CHECK)).singleElement().satisfies(x -> {
            assertThat(Plain.evidence(x)).containsEntry("trust", "dscp").containsEntry("expected", "pcp");
            assertThat(x.remediation()).contains("--trust pcp");
        });
    }
}
