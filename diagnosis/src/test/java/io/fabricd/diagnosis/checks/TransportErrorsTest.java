package io.fabricd.diagnosis.checks;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.diagnosis.Hosts;
import io.fabricd.diagnosis.Plain;
import io.fabricd.model.HostModel;
import io.fabricd.model.TransportCounters;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Severity;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * transport_errors for every driver whose counters are classified, wherever the driver keeps them:
 * a port's hw_counters/ (mlx5, rxe, bnxt_re, irdma, efa) or the device's (mlx4 without per-port
 * diagnostic counters).
 */
class TransportErrorsTest {
    static final String MLX4 = "sys/class/infiniband/mlx4_0/";

    static List<Finding> of(HostModel m, String device) {
        return Hosts.of(m, "transport_errors").stream().filter(f -> device.equals(f.subject().device())).toList();
    }

    /** A counter of each driver, where its driver keeps it (the port's folder, or the device's: port 0). */
    static Stream<Arguments> drivers() {
        return Stream.of(
                Arguments.of("host-a-ib", "mlx5_0", 1, "req_transport_retries_exceeded"),
                Arguments.of("host-c-rxe", "rxe0", 1, "retry_exceeded_err"),
                Arguments.of("host-g-drivers", "bnxt_re0", 1, "max_retry_exceeded"),
                Arguments.of("host-g-drivers", "bnxt_re0", 1, "oos_drop_count"),
                Arguments.of("host-g-drivers", "irdma0", 1, "tcpRetransSegs"),
                Arguments.of("host-g-drivers", "efa_0", 1, "rx_drops"),
                Arguments.of("host-g-drivers", "mlx4_0", 0, "sq_num_tree"),
                Arguments.of("host-g-drivers", "mlx4_0", 0, "rq_num_oos"),
                Arguments.of("host-g-drivers", "mlx4_0", 0, "rq_num_lle"),
                Arguments.of("host-g-drivers", "mlx4_0", 0, "rq_num_rire"),
                Arguments.of("host-g-drivers", "mlx4_0", 0, "num_cqovf"));
    }

    @ParameterizedTest(name = "{1} {3}")
    @MethodSource("drivers")
    void totalsOfOneCollectionAreReportedForEveryDriver(String fixture, String device, int port, String counter, @TempDir Path tmp) {
        Path root = Hosts.copy(fixture, tmp.resolve("h"));
        String dir = "sys/class/infiniband/" + device + "/" + (port == 0 ? "" : "ports/" + port + "/") + "hw_counters/";
        Hosts.write(root, dir + counter, "4242\n");
        assertThat(of(Hosts.model(root), device)).filteredOn(f -> port == 0 ? f.subject().port() == null : Integer.valueOf(port).equals(f.subject().port()))
                .singleElement().satisfies(f -> {
                    assertThat(f.severity()).isEqualTo(Severity.INFO);
                    assertThat(f.summary()).contains(counter + " 4242").contains("since the driver loaded");
                    assertThat(totals(f)).contains(Map.of("type", TransportCounters.type(counter).label(), "counter", counter,
                            "total", "4242"));
                });
    }

    @Test
    void anMlx4DevicesQueueErrorsAreItsOwnFinding() {
        HostModel m = Hosts.model("host-g-drivers");
        assertThat(of(m, "mlx4_0")).singleElement().satisfies(f -> {
            assertThat(Plain.subject(f)).isEqualTo(Map.of("device", "mlx4_0"));
            assertThat(f.summary()).startsWith("RDMA transport errors on mlx4_0 (its device-wide counters, every port)")
                    .contains("rq_num_oos 57", "sq_num_tree 2", "rq_num_wrfe 14", "sq_num_wrfe 9", "rq_num_rnr 3", "rq_num_udsdprd 31");
            assertThat(totals(f)).extracting(t -> t.get("type")).containsExactlyInAnyOrder("out_of_sequence", "retries_exceeded",
                    "flushed", "flushed", "rnr_nak", "discards");
            assertThat(f.remediation()).contains("/sys/class/infiniband/mlx4_0/hw_counters");
        });
    }

    @Test
    void anMlx4DevicesQueueErrorsRiseLikeAPorts(@TempDir Path tmp) {
        Path root = Hosts.copy("host-g-drivers", tmp.resolve("h"));
        HostModel a = Hosts.model(root, Hosts.T0);
        Hosts.write(root, MLX4 + "hw_counters/rq_num_oos", "6057\n");
        Hosts.write(root, MLX4 + "hw_counters/sq_num_tree", "3\n");
        HostModel b = Hosts.model(root, Hosts.T0.plusSeconds(60));
        assertThat(Hosts.of(b, a, DiagnosisConfig.DEFAULT, "transport_errors")).singleElement().satisfies(f -> {
            assertThat(Plain.subject(f)).isEqualTo(Map.of("device", "mlx4_0"));
            assertThat(f.severity()).isEqualTo(Severity.WARNING);
            assertThat(f.summary()).contains("rq_num_oos +6000", "sq_num_tree +1", "in 60 s");
        });
        // the same counters unchanged: nothing rose
        assertThat(Hosts.of(Hosts.model(root, Hosts.T0.plusSeconds(120)), b, DiagnosisConfig.DEFAULT, "transport_errors")).isEmpty();
    }

    @Test
    void countersAPortAlsoHasAreJudgedOnItsPortNotTwice(@TempDir Path tmp) {
        // firmware with per-port diagnostic counters: each port has diag_basic and diag_ext, the device those and its own
        Path root = Hosts.copy("host-g-drivers", tmp.resolve("h"));
        for (int port : new int[] {1, 2}) {
            Hosts.write(root, MLX4 + "ports/" + port + "/hw_counters/rq_num_oos", (port == 1 ? "40" : "17") + "\n");
            Hosts.write(root, MLX4 + "ports/" + port + "/hw_counters/rq_num_dup", "0\n");
            Hosts.write(root, MLX4 + "ports/" + port + "/hw_counters/sq_num_to", "0\n");
        }
        Hosts.write(root, MLX4 + "hw_counters/rq_num_dup", "0\n");
        Hosts.write(root, MLX4 + "hw_counters/sq_num_to", "0\n");
        List<Finding> f = of(Hosts.model(root), "mlx4_0");
        assertThat(f).extracting(x -> x.subject().port()).containsExactlyInAnyOrder(1, 2, null);
        assertThat(f).filteredOn(x -> x.subject().port() == null).singleElement()
                .satisfies(x -> assertThat(x.summary()).contains("rq_num_udsdprd 31").doesNotContain("rq_num_oos"));
        assertThat(f).filteredOn(x -> Integer.valueOf(1).equals(x.subject().port())).singleElement()
                .satisfies(x -> assertThat(x.summary()).contains("rq_num_oos 40"));
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> totals(Finding f) {
        return (List<Map<String, Object>>) Plain.evidence(f).get("totals");
    }
}
