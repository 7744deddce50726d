package io.fabricd.diagnosis.checks;

import static io.fabricd.diagnosis.Hosts.T0;
import static io.fabricd.diagnosis.checks.SwitchHosts.ND;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.diagnosis.Hosts;
import io.fabricd.diagnosis.Plain;
import io.fabricd.diagnosis.run.Diagnosis;
import io.fabricd.model.HostModel;
import io.fabricd.model.finding.NotJudged;
import io.fabricd.model.finding.Severity;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SwitchPauseUnexpectedTest {
    static final String CHECK = "switch_pause_unexpected";

    @Test
    void theSwitchPausesAPriorityTheHostHasNoPfcOn(@TempDir Path tmp) {
        Path b = SwitchHosts.copy(tmp.resolve("b"));
        SwitchHosts.lldp(b, "100GbaseCR4", "0 day, 05:00:00");
        HostModel before = Hosts.model(b, T0);
        SwitchHosts.dcbFrames(b, "indications", 0, 500);
        assertThat(Hosts.of(Hosts.model(b, T0.plusSeconds(60)), before, DiagnosisConfig.DEFAULT, CHECK)).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.WARNING);
            assertThat(Plain.subject(f)).containsEntry("device", "mlx5_0").containsEntry("netdev", ND).containsEntry("priority", 0);
            assertThat(f.summary()).isEqualTo("switch leaf-07 port Ethernet12 sent 500 PFC pause frames on priority 0 to ens1f0np0, "
                    + "where the host has no PFC (host PFC on [3])");
            assertThat(Plain.evidence(f)).containsEntry("rx_pfc_frames", 500L).containsEntry("switch", "leaf-07")
                    .containsEntry("switch_port", "Ethernet12");
            assertThat(f.remediation()).contains("pfc show priority Ethernet12");
        });
    }

    @Test
    void aPortIdThatIsNoNameNeverReachesTheCommands(@TempDir Path tmp) {
        Path b = SwitchHosts.copy(tmp.resolve("b"));
        SwitchHosts.lldp(b, "100GbaseCR4", "0 day, 05:00:00", "leaf-07", "0c:42:a1:5e:7f:00", NeighborSpeedBelowHostTest.EVIL_PORT);
        HostModel before = Hosts.model(b, T0);
        SwitchHosts.dcbFrames(b, "indications", 0, 500);
        assertThat(Hosts.of(Hosts.model(b, T0.plusSeconds(60)), before, DiagnosisConfig.DEFAULT, CHECK)).singleElement().satisfies(f -> {
            assertThat(f.summary()).startsWith("switch leaf-07 sent 500 PFC pause frames");
            assertThat(f.remediation()).contains("pfc show priority <port>", "nv show interface <port> qos pfc").doesNotContain("curl");
        });
    }

    @Test
    void withoutLldpTheWordsSayTheSwitchPort(@TempDir Path tmp) {
        Path b = SwitchHosts.copy(tmp.resolve("b"));
        HostModel before = Hosts.model(b, T0);
        SwitchHosts.dcbFrames(b, "indications", 5, 7);
        assertThat(Hosts.of(Hosts.model(b, T0.plusSeconds(60)), before, DiagnosisConfig.DEFAULT, CHECK)).singleElement().satisfies(f -> {
            assertThat(f.summary()).startsWith("the switch port sent 7 PFC pause frames on priority 5");
            assertThat(Plain.evidence(f)).doesNotContainKey("switch");
            assertThat(f.remediation()).contains("pfc show priority <port>");
        });
    }

    @Test
    void pausesOnTheHostsPfcPriorityAndQuietCountersAreHealthy(@TempDir Path tmp) {
        Path b = SwitchHosts.copy(tmp.resolve("b"));
        HostModel before = Hosts.model(b, T0);
        assertThat(Hosts.of(Hosts.model(b, T0.plusSeconds(60)), before, DiagnosisConfig.DEFAULT, CHECK)).isEmpty();
        SwitchHosts.dcbFrames(b, "indications", 3, 10_000);
        Hosts.stat(b, ND, "rx_prio3_pause", 90412 + 10_000);
        assertThat(Hosts.of(Hosts.model(b, T0.plusSeconds(60)), before, DiagnosisConfig.DEFAULT, CHECK)).isEmpty();
    }

    @Test
    void oneCollectionIsNoEvidence() {
        // totals since the driver loaded say nothing of when or under which PFC setting they were counted
        assertThat(Hosts.of(Hosts.model("host-b-roce"), CHECK)).isEmpty();
        assertThat(Diagnosis.run(Hosts.model("host-b-roce"), null).checksWithoutHistory()).contains(CHECK);
    }

    @Test
    void pfcOffOnTheHostEverywhereAndTheSwitchPausing(@TempDir Path tmp) {
        Path b = SwitchHosts.copy(tmp.resolve("b"));
        Hosts.json(b, SwitchHosts.DCB, n -> n.withObjectProperty("pfc").putArray("enabled"));
        SwitchHosts.dropStats(b, "(rx|tx)_prio3_pause.*"); // mlx5 lists them only while PFC is on
        HostModel before = Hosts.model(b, T0);
        SwitchHosts.dcbFrames(b, "indications", 3, 40);
        assertThat(Hosts.of(Hosts.model(b, T0.plusSeconds(60)), before, DiagnosisConfig.DEFAULT, CHECK)).singleElement()
                .satisfies(f -> assertThat(f.summary()).endsWith("where the host has no PFC (host PFC on [])"));
    }

    @Test
    void pfcTurnedOffBetweenTheCollectionsIsNoClaim(@TempDir Path tmp) {
        Path b = SwitchHosts.copy(tmp.resolve("b"));
        HostModel before = Hosts.model(b, T0);
        Hosts.json(b, SwitchHosts.DCB, n -> n.withObjectProperty("pfc").putArray("enabled"));
        SwitchHosts.dcbFrames(b, "indications", 3, 40); // counted while PFC may still have been on
        assertThat(Hosts.of(Hosts.model(b, T0.plusSeconds(60)), before, DiagnosisConfig.DEFAULT, CHECK)).isEmpty();
    }

    @Test
    void withoutCountsOfTheOtherPrioritiesItIsBlindNotSilent(@TempDir Path tmp) {
        // no DCB side-car: PFC on 3 is proven by mlx5's statistics, which count no other priority
        Path b = SwitchHosts.copy(tmp.resolve("b"));
        Hosts.delete(b, SwitchHosts.DCB);
        HostModel before = Hosts.model(b, T0);
        var r = Diagnosis.run(Hosts.model(b, T0.plusSeconds(60)), before, DiagnosisConfig.DEFAULT);
        assertThat(r.findings()).noneMatch(f -> f.check().equals(CHECK));
        List<NotJudged> nj = r.notJudged().stream().filter(n -> n.check().equals(CHECK)).toList();
        assertThat(nj).singleElement().satisfies(n -> {
            assertThat(n.reason()).isEqualTo(NotJudged.Reason.BLIND);
            assertThat(n.detail()).contains("priorities [0, 1, 2, 4, 5, 6, 7]");
        });
    }
}
