package io.fabricd.diagnosis.checks;

import io.fabricd.diagnosis.Plain;
import static io.fabricd.diagnosis.Hosts.model;
import static io.fabricd.diagnosis.Hosts.of;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.diagnosis.Hosts;
import io.fabricd.model.finding.Severity;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GlobalPauseWithPfcTest {
    static final String CHECK = "global_pause_with_pfc";

    @Test
    void globalPauseOnAPfcPort() {
        assertThat(of(model("host-e-roce-variants"), CHECK)).singleElement().satisfies(x -> {
            assertThat(Plain.subject(x)).containsEntry("device", "mlx5_0").containsEntry("netdev", "ens1f0np0");
            assertThat(x.severity()).isEqualTo(Severity.WARNING);
            assertThat(Plain.evidence(x)).containsEntry("pause_rx", true).containsEntry("source", "ETHTOOL_GPAUSEPARAM");
        });
    }

    @Test
    void noGlobalPauseOrNoPfcIsNotAFinding(@TempDir Path tmp) {
        assertThat(of(model("host-b-roce"), CHECK)).isEmpty();
        // global pause without PFC is a lossless-by-802.3x port, not this check's business
        Path b = Hosts.copy("host-b-roce", tmp.resolve("b"));
        Hosts.json(b, "fabricd/ethtool/ens1f0np0.pause.json", n -> n.put("rx", true).put("tx", true));
        Hosts.json(b, "fabricd/dcb/ens1f0np0.json", n -> n.withObjectProperty("pfc").putArray("enabled"));
        assertThat(of(Hosts.model(b), CHECK)).isEmpty();
    }

    @Test
    void driverStatisticsWhenPauseParametersAreMissing(@TempDir Path tmp) {
        Path b = Hosts.copy("host-b-roce", tmp.resolve("b"));
        Hosts.delete(b, "fabricd/ethtool/ens1f0np0.pause.json");
        assertThat(of(Hosts.model(b), CHECK)).isEmpty();
        Hosts.stat(b, "ens1f0np0", "rx_global_pause", 12);
        assertThat(of(Hosts.model(b), CHECK)).singleElement()
                .satisfies(x -> assertThat(Plain.evidence(x).get("source").toString()).contains("rx/tx_global_pause"));
    }
}
