package io.fabricd.diagnosis.checks;

import io.fabricd.diagnosis.Plain;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.diagnosis.Hosts;
import io.fabricd.diagnosis.run.Diagnosis;
import io.fabricd.diagnosis.run.Report;
import io.fabricd.model.HostModel;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Severity;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A port that carries no traffic is judged by link_down alone (configuration checks leave it), and
 * missing files never turn into the opposite claim.
 */
class DownPortsTest {

    @Test
    void anUnusedRoceWithoutPfcMtuOrTrustIsNoConfigurationFinding(@TempDir Path tmp) {
        Path root = Hosts.copy("host-e-roce-variants", tmp.resolve("h"));
        HostModel before = Hosts.model(root);
        List<String> configChecks = List.of("pfc_missing", "mtu_mismatch", "trust_mismatch", "ecn_disabled", "global_pause_with_pfc");
        assertThat(Diagnosis.run(before, null).findings()).anyMatch(f -> Plain.subject(f).get("device").equals("mlx5_1")
                && configChecks.contains(f.check()) && f.severity().atLeast(Severity.WARNING));
        for (String port : List.of("mlx5_0", "mlx5_1")) {
            Hosts.write(root, "sys/class/infiniband/" + port + "/ports/1/state", "1: DOWN\n");
            Hosts.write(root, "sys/class/infiniband/" + port + "/ports/1/phys_state", "3: Disabled\n");
        }
        Report r = Diagnosis.run(Hosts.model(root), null);
        assertThat(r.findings()).noneMatch(f -> ("mlx5_0".equals(Plain.subject(f).get("device")) || "mlx5_1".equals(Plain.subject(f).get("device")))
                && configChecks.contains(f.check()));
    }

    @Test
    void anActivePortWhosePhysicalStateWasNotCapturedIsUp(@TempDir Path tmp) {
        Path root = Hosts.copy("host-b-roce", tmp.resolve("h"));
        Hosts.delete(root, "sys/class/infiniband/mlx5_0/ports/1/phys_state");
        HostModel m = Hosts.model(root);
        assertThat(m.port("mlx5_0", 1).orElseThrow().up()).isTrue();
        assertThat(Hosts.of(m, "link_down")).isEmpty();
    }

    @Test
    void aDownPortWithoutPhysicalStateIsStillJudgedByItsState(@TempDir Path tmp) {
        Path root = Hosts.copy("host-a-ib", tmp.resolve("h"));
        Hosts.delete(root, "sys/class/infiniband/mlx5_0/ports/1/phys_state");
        Hosts.write(root, "sys/class/infiniband/mlx5_0/ports/1/state", "1: DOWN\n");
        List<Finding> f = Hosts.of(Hosts.model(root), "link_down");
        assertThat(f).singleElement().satisfies(x -> assertThat(Plain.evidence(x)).containsEntry("phys_state", "not read"));
    }

    @Test
    void errorTotalsOfOneCollectionAreInfoWithTheirValues(@TempDir Path tmp) {
        Path root = Hosts.copy("host-f-big", tmp.resolve("h"));
        Hosts.stat(root, "ens1f0np0", "rx_crc_errors_phy", 57);
        Hosts.write(root, "sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error", "12\n");
        List<Finding> f = Hosts.of(Hosts.model(root), "port_errors_rising").stream()
                .filter(x -> Plain.subject(x).get("device").equals("mlx5_0")).toList();
        assertThat(f).singleElement().satisfies(x -> {
            assertThat(x.severity()).isEqualTo(Severity.INFO);
            assertThat(x.summary()).contains("symbol_error 12").contains("ens1f0np0 crc errors 57").contains("link down events 1");
        });
        // with history the totals are a rate question, not info
        HostModel a = Hosts.model(root, Hosts.T0);
        HostModel b = Hosts.model(root, Hosts.T0.plusSeconds(60));
        assertThat(Hosts.of(b, a, DiagnosisConfig.DEFAULT, "port_errors_rising")).isEmpty();
    }

    @Test
    void oneBurstOfRetriesExceededIsAWarningWithItsTime(@TempDir Path tmp) {
        Path root = Hosts.copy("host-f-big", tmp.resolve("h"));
        Hosts.write(root, "sys/class/infiniband/mlx5_0/ports/1/hw_counters/req_transport_retries_exceeded", "0\n");
        HostModel a = Hosts.model(root, Hosts.T0);
        Hosts.write(root, "sys/class/infiniband/mlx5_0/ports/1/hw_counters/req_transport_retries_exceeded", "40\n");
        HostModel b = Hosts.model(root, Hosts.T0.plusSeconds(10));
        assertThat(Hosts.of(b, a, DiagnosisConfig.DEFAULT, "transport_errors")).singleElement().satisfies(x -> {
            assertThat(x.severity()).isEqualTo(Severity.WARNING);
            assertThat(Plain.evidence(x)).containsEntry("between", Hosts.T0 + " and " + Hosts.T0.plusSeconds(10));
        });
    }
}
