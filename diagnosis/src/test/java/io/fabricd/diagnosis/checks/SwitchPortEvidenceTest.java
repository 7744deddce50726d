package io.fabricd.diagnosis.checks;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.diagnosis.Hosts;
import io.fabricd.diagnosis.Plain;
import io.fabricd.diagnosis.run.Diagnosis;
import io.fabricd.model.finding.Finding;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every port finding names the switch port its cable reaches when a stable LLDP neighbour announces it
 * (host-b-roce: port_errors_rising and transport_errors on mlx5_0 port 1, ens1f0np0; lldpd's neighbour
 * there leaf-07 port Ethernet12, SwitchHosts.lldp); findings of the host or a GPU are left alone, and
 * so is every finding without a neighbour, or with one lldpd has just seen change.
 */
class SwitchPortEvidenceTest {

    private static List<Finding> ports(List<Finding> all) {
        return all.stream().filter(f -> "mlx5_0".equals(f.subject().device())).toList();
    }

    @Test
    void aPortFindingNamesTheSwitchPortAtTheOtherEnd(@TempDir Path tmp) {
        Path b = SwitchHosts.copy(tmp.resolve("b"));
        SwitchHosts.lldp(b, "100GbaseCR4", "0 day, 08:00:00");
        List<Finding> all = Diagnosis.run(Hosts.model(b), null).findings();
        assertThat(ports(all)).extracting(Finding::check).contains("port_errors_rising", "transport_errors");
        assertThat(ports(all)).allSatisfy(f -> assertThat(Plain.evidence(f)).containsEntry("switch", "leaf-07")
                .containsEntry("switch_port", "Ethernet12"));
        assertThat(all).filteredOn(f -> f.subject().device() == null).isNotEmpty()
                .allSatisfy(f -> assertThat(Plain.evidence(f)).doesNotContainKey("switch"));
    }

    @Test
    void aSystemNameThatIsNoNameIsNotPutInTheEvidence(@TempDir Path tmp) {
        Path b = SwitchHosts.copy(tmp.resolve("b"));
        SwitchHosts.lldp(b, "100GbaseCR4", "0 day, 08:00:00", "leaf-07\u001b]0;x\u0007", "0c:42:a1:5e:7f:00", "Ethernet12");
        assertThat(ports(Diagnosis.run(Hosts.model(b), null).findings())).isNotEmpty()
                .allSatisfy(f -> assertThat(Plain.evidence(f)).doesNotContainKey("switch"));
    }

    @Test
    void withoutAStableNeighbourNothingIsAdded(@TempDir Path tmp) {
        assertThat(ports(Diagnosis.run(Hosts.model("host-b-roce"), null).findings())).isNotEmpty()
                .allSatisfy(f -> assertThat(Plain.evidence(f)).doesNotContainKey("switch"));
        Path young = SwitchHosts.copy(tmp.resolve("young"));
        SwitchHosts.lldp(young, "100GbaseCR4", "0 day, 00:00:30");
        assertThat(ports(Diagnosis.run(Hosts.model(young), null).findings())).isNotEmpty()
                .allSatisfy(f -> assertThat(Plain.evidence(f)).doesNotContainKey("switch"));
    }
}
