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

class EcnDisabledTest {
    static final String CHECK = "ecn_disabled";
    static final String HW = "sys/class/infiniband/mlx5_0/ports/1/hw_counters/";

    @Test
    void mlnxOfedKnobsOffOnTheRdmaPriority() {
        assertThat(of(model("host-e-roce-variants"), CHECK)).singleElement().satisfies(x -> {
            assertThat(Plain.subject(x)).containsEntry("device", "mlx5_0").containsEntry("priority", 3);
            assertThat(x.severity()).isEqualTo(Severity.WARNING);
            assertThat(Plain.evidence(x)).containsEntry("ecn_np_enabled", false).containsEntry("ecn_rp_enabled", false);
        });
    }

    @Test
    void workingDcqcnIsNotAFinding() {
        // host B: ECN marks answered by CNPs, CNPs handled
        assertThat(of(model("host-b-roce"), CHECK)).isEmpty();
        assertThat(of(model("host-a-ib"), CHECK)).isEmpty();
    }

    @Test
    void markedPacketsWithoutCnpsMeanTheNotificationPointIsOff(@TempDir Path tmp) {
        Path b = Hosts.copy("host-b-roce", tmp.resolve("b"));
        Hosts.write(b, HW + "np_cnp_sent", "0\n");
        assertThat(of(Hosts.model(b), CHECK)).singleElement()
                .satisfies(x -> assertThat(x.summary()).contains("no CNP was sent").contains("since the driver loaded"));
    }

    @Test
    void ignoredCnpsRisingNeedTheInterval(@TempDir Path tmp) {
        Path b = Hosts.copy("host-b-roce", tmp.resolve("b"));
        Hosts.write(b, HW + "rp_cnp_ignored", "100\n");
        HostModel before = Hosts.model(b, T0);
        // one-shot: the total since the driver loaded says congestion control was off at some point
        assertThat(of(before, CHECK)).singleElement()
                .satisfies(x -> assertThat(x.summary()).contains("100 CNPs ignored since the driver loaded"));
        // with history, only an increase counts
        HostModel same = Hosts.model(b, T0.plusSeconds(30));
        assertThat(of(same, before, DiagnosisConfig.DEFAULT, CHECK)).isEmpty();
        Hosts.write(b, HW + "rp_cnp_ignored", "400\n");
        HostModel after = Hosts.model(b, T0.plusSeconds(60));
        assertThat(of(after, before, DiagnosisConfig.DEFAULT, CHECK)).singleElement().satisfies(x -> {
            assertThat(Plain.evidence(x)).containsEntry("rp_cnp_ignored", 300L).containsEntry("counts", "increase over the interval");
            assertThat(x.summary()).contains("300 CNPs ignored in the last 60 s");
        });
    }
}
