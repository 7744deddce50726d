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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SwitchPauseMissingTest {
    static final String CHECK = "switch_pause_missing";

    /** host-b-roce a minute later: {@code drops} on priority 3, {@code tx} pauses sent, {@code rx} received there. */
    static HostModel later(Path b, long drops, long tx, long rx) {
        Hosts.stat(b, ND, "rx_prio3_buf_discard", drops);
        Hosts.stat(b, ND, "tx_prio3_pause", 118823 + tx);
        Hosts.stat(b, ND, "rx_prio3_pause", 90412 + rx);
        return Hosts.model(b, T0.plusSeconds(60));
    }

    @Test
    void theHostPausedTheSwitchAndStillDropped(@TempDir Path tmp) {
        Path b = SwitchHosts.copy(tmp.resolve("b"));
        SwitchHosts.lldp(b, "100GbaseCR4", "1 day, 00:00:00");
        HostModel before = Hosts.model(b, T0);
        assertThat(Hosts.of(later(b, 1200, 800, 0), before, DiagnosisConfig.DEFAULT, CHECK)).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.WARNING);
            assertThat(Plain.subject(f)).containsEntry("netdev", ND).containsEntry("priority", 3);
            assertThat(f.summary()).isEqualTo("ens1f0np0 dropped 1200 packets of lossless priority 3 after sending 800 PFC pause frames, "
                    + "and switch leaf-07 port Ethernet12 never paused it there: the switch port looks to run no PFC on priority 3");
            assertThat(Plain.evidence(f)).containsEntry("rx_buffer_discards", 1200L).containsEntry("tx_pfc_frames", 800L)
                    .containsEntry("rx_pfc_frames", 0L);
            assertThat(f.remediation()).contains("mlnx_qos -i ens1f0np0");
        });
    }

    @Test
    void aSwitchThatPausesTooRunsPfc(@TempDir Path tmp) {
        Path b = SwitchHosts.copy(tmp.resolve("b"));
        HostModel before = Hosts.model(b, T0);
        assertThat(Hosts.of(later(b, 1200, 800, 15), before, DiagnosisConfig.DEFAULT, CHECK)).isEmpty();
    }

    @Test
    void dropsWithoutAPauseSentAreTheHostsOwnPfc(@TempDir Path tmp) {
        Path b = SwitchHosts.copy(tmp.resolve("b"));
        HostModel before = Hosts.model(b, T0);
        assertThat(Hosts.of(later(b, 1200, 0, 0), before, DiagnosisConfig.DEFAULT, CHECK)).isEmpty();
    }

    @Test
    void aHealthyHostAndOneCollection(@TempDir Path tmp) {
        Path b = SwitchHosts.copy(tmp.resolve("b"));
        HostModel before = Hosts.model(b, T0);
        assertThat(Hosts.of(later(b, 0, 500, 300), before, DiagnosisConfig.DEFAULT, CHECK)).isEmpty();
        assertThat(Hosts.of(Hosts.model("host-b-roce"), CHECK)).isEmpty();
    }

    @Test
    void pfcOffOnTheHostIsNotThisCheck(@TempDir Path tmp) {
        Path b = SwitchHosts.copy(tmp.resolve("b"));
        Hosts.json(b, SwitchHosts.DCB, n -> n.withObjectProperty("pfc").putArray("enabled"));
        HostModel before = Hosts.model(b, T0);
        var r = Diagnosis.run(later(b, 1200, 800, 0), before, DiagnosisConfig.DEFAULT);
        assertThat(r.findings()).noneMatch(f -> f.check().equals(CHECK));
        assertThat(r.notJudged()).noneMatch(n -> n.check().equals(CHECK));
    }

    @Test
    void withoutAPerPriorityDropCounterItIsBlind(@TempDir Path tmp) {
        Path b = SwitchHosts.copy(tmp.resolve("b"));
        SwitchHosts.dropStats(b, "rx_prio\\d_buf_discard");
        HostModel before = Hosts.model(b, T0);
        Hosts.stat(b, ND, "rx_discards_phy", 5000); // port-wide: mixes the lossy priorities in, not taken
        Hosts.stat(b, ND, "tx_prio3_pause", 118823 + 800);
        var r = Diagnosis.run(Hosts.model(b, T0.plusSeconds(60)), before, DiagnosisConfig.DEFAULT);
        assertThat(r.findings()).noneMatch(f -> f.check().equals(CHECK));
        assertThat(r.notJudged()).filteredOn(n -> n.check().equals(CHECK)).singleElement().satisfies(n -> {
            assertThat(n.reason()).isEqualTo(NotJudged.Reason.BLIND);
            assertThat(n.detail()).isEqualTo("ens1f0np0 does not count per-priority receive buffer drops on priority 3");
        });
    }
}
