package io.fabricd.diagnosis.checks;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.diagnosis.Hosts;
import io.fabricd.diagnosis.Plain;
import io.fabricd.diagnosis.run.Diagnosis;
import io.fabricd.model.HostModel;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Severity;
import io.fabricd.model.probe.ProbeResults;
import io.fabricd.model.topology.Placement;
import io.fabricd.model.topology.Placement.Source;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** host-b-roce with lldpd's one neighbour on ens1f0np0: leaf-07 port Ethernet12 (SwitchHosts.lldp). */
class TopologyMismatchTest {
    static final String CHECK = "topology_mismatch";

    static List<Finding> judge(HostModel m, Placement declared) {
        return Diagnosis.run(m, null, null, ProbeResults.NONE, declared, DiagnosisConfig.DEFAULT).findings().stream()
                .filter(f -> f.check().equals(CHECK)).toList();
    }

    static HostModel cabledToLeaf07(Path tmp, String age) {
        Path b = SwitchHosts.copy(tmp.resolve("b"));
        SwitchHosts.lldp(b, "100GbaseCR4", age);
        return Hosts.model(b);
    }

    static Placement under(String leaf, Source source) {
        return new Placement("gpu-node-17", List.of(leaf, "spine-1"), null, source);
    }

    @Test
    void theMapPlacesTheHostUnderAnotherLeafThanItsCableReaches(@TempDir Path tmp) {
        assertThat(judge(cabledToLeaf07(tmp, "0 day, 08:00:00"), under("leaf-09", Source.SLURM))).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.WARNING);
            assertThat(Plain.subject(f)).isEmpty();
            assertThat(f.summary()).isEqualTo("the site's topology (slurm) places this host under leaf-09, but its RDMA ports are cabled "
                    + "to leaf-07 (ens1f0np0 -> leaf-07 port Ethernet12)");
            assertThat(Plain.evidence(f)).containsEntry("declared_leaf", "leaf-09").containsEntry("declared_source", "slurm");
            assertThat(f.remediation()).contains("correct the topology (Slurm's topology.conf)", "show lldp neighbors");
        });
    }

    @Test
    void theSameLeafWithADomainOrInCapitalsAgrees(@TempDir Path tmp) {
        HostModel m = cabledToLeaf07(tmp, "0 day, 08:00:00");
        assertThat(judge(m, under("leaf-07", Source.FILE))).isEmpty();
        assertThat(judge(m, under("LEAF-07.dc1.example", Source.TOPOGRAPH))).isEmpty();
        assertThat(TopologyMismatch.same("leaf-07.dc1.example", "leaf-07")).isTrue();
        assertThat(TopologyMismatch.same("leaf-070", "leaf-07")).isFalse();
    }

    @Test
    void nothingToCompareIsNoClaim(@TempDir Path tmp) {
        // no LLDP at all; a neighbour lldpd has just seen change; no placement; a rack label is not a switch name
        assertThat(judge(Hosts.model("host-b-roce"), under("leaf-09", Source.SLURM))).isEmpty();
        assertThat(judge(cabledToLeaf07(tmp.resolve("young"), "0 day, 00:00:30"), under("leaf-09", Source.SLURM))).isEmpty();
        HostModel m = cabledToLeaf07(tmp.resolve("old"), "0 day, 08:00:00");
        assertThat(judge(m, null)).isEmpty();
        assertThat(judge(m, under("r12", Source.LABELS))).isEmpty();
        assertThat(judge(m, new Placement("gpu-node-17", List.of(), "nvl-1", Source.SLURM))).as("a block alone names no leaf").isEmpty();
    }
}
