package io.fabricd.diagnosis.checks;

import io.fabricd.diagnosis.Plain;
import static io.fabricd.diagnosis.Hosts.model;
import static io.fabricd.diagnosis.Hosts.of;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.model.finding.Finding;
import io.fabricd.diagnosis.Hosts;
import io.fabricd.model.finding.Severity;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MtuMismatchTest {
    static final String CHECK = "mtu_mismatch";

    @Test
    void smallNetdevMtuLimitsActiveMtu() {
        // host E (derived MTUs): ens1f1np1 1500 -> 1024; veth0 1500 -> 1024 (rxe); ens1f0np0 4200 -> 4096 is fine
        List<Finding> f = of(model("host-e-roce-variants"), CHECK);
        assertThat(f).extracting(x -> Plain.subject(x).get("device")).containsExactlyInAnyOrder("mlx5_1", "rxe0");
        assertThat(f).filteredOn(x -> Plain.subject(x).get("device").equals("mlx5_1")).singleElement().satisfies(x -> {
            assertThat(x.severity()).isEqualTo(Severity.WARNING);
            assertThat(Plain.evidence(x)).containsEntry("netdev_mtu", 1500).containsEntry("netdev_mtu_needed", 4192)
                    .containsEntry("active_mtu", 1024).containsEntry("max_mtu", 4096);
        });
        assertThat(f).filteredOn(x -> Plain.subject(x).get("device").equals("rxe0")).singleElement()
                .satisfies(x -> assertThat(Plain.evidence(x)).containsEntry("netdev_mtu_needed", 4176));
    }

    @Test
    void demoPlantedFaultAndHealthyHosts(@TempDir Path tmp) {
        assertThat(of(Hosts.model(Hosts.demo(tmp.resolve("demo"))), CHECK)).singleElement()
                .satisfies(x -> assertThat(Plain.subject(x)).containsEntry("device", "mlx5_6").containsEntry("netdev", "ens7f0np0"));
        assertThat(of(model("host-a-ib"), CHECK)).isEmpty();
        assertThat(of(model("host-b-roce"), CHECK)).isEmpty();
    }

    @Test
    void activeMtuBelowItsSiblings(@TempDir Path tmp) {
        // an InfiniBand port the subnet manager brought up at 2048 while its siblings run 4096
        Path d = Hosts.demo(tmp.resolve("demo"));
        Hosts.json(d, "fabricd/verbs/mlx5_2.json", n -> n.withObjectProperty("ports").withObjectProperty("1").put("active_mtu", 2048));
        List<Finding> f = of(Hosts.model(d), CHECK);
        assertThat(f).filteredOn(x -> Plain.subject(x).get("device").equals("mlx5_2")).singleElement().satisfies(x -> {
            assertThat(Plain.evidence(x)).containsEntry("active_mtu", 2048).containsEntry("sibling_active_mtu", 4096);
            assertThat(x.summary()).contains("below 4096");
        });
        assertThat(f).extracting(x -> Plain.subject(x).get("device")).containsExactlyInAnyOrder("mlx5_2", "mlx5_6");
    }
}
