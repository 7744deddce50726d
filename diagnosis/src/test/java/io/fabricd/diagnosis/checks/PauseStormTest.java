package io.fabricd.diagnosis.checks;

import io.fabricd.diagnosis.Plain;
import static io.fabricd.diagnosis.Hosts.T0;
import static io.fabricd.diagnosis.Hosts.model;
import static io.fabricd.diagnosis.Hosts.of;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.model.HostModel;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.diagnosis.Hosts;
import io.fabricd.model.finding.Severity;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PauseStormTest {
    static final String CHECK = "pause_storm";
    static final String ND = "ens1f0np0";

    @Test
    void watchdogEventsSinceTheDriverLoaded() {
        assertThat(of(model("host-e-roce-variants"), CHECK)).singleElement().satisfies(x -> {
            assertThat(Plain.subject(x)).containsEntry("device", "mlx5_2").containsEntry("netdev", "ens2f0np0");
            assertThat(x.severity()).isEqualTo(Severity.WARNING);
            assertThat(Plain.evidence(x)).containsEntry("tx_pause_storm_warning_events", 3L);
        });
    }

    @Test
    void ordinaryPauseTrafficIsNotAStorm(@TempDir Path tmp) {
        assertThat(of(model("host-b-roce"), CHECK)).isEmpty();
        Path b = Hosts.copy("host-b-roce", tmp.resolve("b"));
        HostModel before = Hosts.model(b, T0);
        Hosts.stat(b, ND, "tx_prio3_pause", 118823 + 6000);           // 100/s
        Hosts.stat(b, ND, "rx_prio3_pause_duration", 4521003 + 600000); // 1 % paused
        assertThat(of(Hosts.model(b, T0.plusSeconds(60)), before, DiagnosisConfig.DEFAULT, CHECK)).isEmpty();
    }

    @Test
    void sendingPausesAtStormRate(@TempDir Path tmp) {
        Path b = Hosts.copy("host-b-roce", tmp.resolve("b"));
        HostModel before = Hosts.model(b, T0);
        Hosts.stat(b, ND, "tx_prio3_pause", 118823 + 300000); // 5000/s
        assertThat(of(Hosts.model(b, T0.plusSeconds(60)), before, DiagnosisConfig.DEFAULT, CHECK)).singleElement().satisfies(x -> {
            assertThat(x.severity()).isEqualTo(Severity.CRITICAL);
            assertThat(Plain.subject(x)).containsEntry("priority", 3).containsEntry("netdev", ND);
            assertThat(Plain.evidence(x)).containsEntry("tx_pause_frames_per_second", 5000L);
        });
    }

    @Test
    void heldPausedMostOfTheTime(@TempDir Path tmp) {
        Path b = Hosts.copy("host-b-roce", tmp.resolve("b"));
        HostModel before = Hosts.model(b, T0);
        Hosts.stat(b, ND, "rx_prio3_pause_duration", 4521003 + 40_000_000L); // 40 s of 60
        assertThat(of(Hosts.model(b, T0.plusSeconds(60)), before, DiagnosisConfig.DEFAULT, CHECK)).singleElement().satisfies(x -> {
            assertThat(x.severity()).isEqualTo(Severity.WARNING);
            assertThat(Plain.evidence(x)).containsEntry("rx_paused_fraction", 0.667);
        });
    }

    @Test
    void watchdogFiringBetweenCollections(@TempDir Path tmp) {
        Path e = Hosts.copy("host-e-roce-variants", tmp.resolve("e"));
        HostModel before = Hosts.model(e, T0);
        // totals unchanged: with history the old events are no finding
        assertThat(of(Hosts.model(e, T0.plusSeconds(30)), before, DiagnosisConfig.DEFAULT, CHECK)).isEmpty();
        Hosts.stat(e, "ens2f0np0", "tx_pause_storm_error_events", 1);
        assertThat(of(Hosts.model(e, T0.plusSeconds(60)), before, DiagnosisConfig.DEFAULT, CHECK)).singleElement().satisfies(x -> {
            assertThat(x.severity()).isEqualTo(Severity.CRITICAL);
            assertThat(x.summary()).contains("fired 1 times in the last 60 s");
        });
    }

    @Test
    void globalPauseAtStormRate(@TempDir Path tmp) {
        // 802.3x pause counts (mlx5 lists them only while global pause is on): sent at 5000/s is
        // critical, held paused 80 % of the time a warning; neither has a priority
        Path b = Hosts.copy("host-b-roce", tmp.resolve("b"));
        Hosts.stat(b, ND, "tx_global_pause", 1000);
        Hosts.stat(b, ND, "rx_global_pause_duration", 0);
        HostModel before = Hosts.model(b, T0);
        Hosts.stat(b, ND, "tx_global_pause", 1000 + 300000);
        assertThat(of(Hosts.model(b, T0.plusSeconds(60)), before, DiagnosisConfig.DEFAULT, CHECK)).singleElement().satisfies(x -> {
            assertThat(x.severity()).isEqualTo(Severity.CRITICAL);
            assertThat(Plain.subject(x)).doesNotContainKey("priority").containsEntry("netdev", ND);
            assertThat(x.summary()).contains("802.3x global pause frames/s");
            assertThat(Plain.evidence(x)).containsEntry("tx_global_pause_frames_per_second", 5000L);
        });
        Path c = Hosts.copy("host-b-roce", tmp.resolve("c"));
        Hosts.stat(c, ND, "rx_global_pause_duration", 0);
        HostModel quiet = Hosts.model(c, T0);
        Hosts.stat(c, ND, "rx_global_pause_duration", 48_000_000); // 48 s of 60
        assertThat(of(Hosts.model(c, T0.plusSeconds(60)), quiet, DiagnosisConfig.DEFAULT, CHECK)).singleElement().satisfies(x -> {
            assertThat(x.severity()).isEqualTo(Severity.WARNING);
            assertThat(Plain.evidence(x)).containsEntry("rx_global_paused_fraction", 0.8);
        });
    }
}
