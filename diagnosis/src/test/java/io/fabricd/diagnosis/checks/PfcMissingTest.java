package io.fabricd.diagnosis.checks;

import io.fabricd.diagnosis.Plain;
import static io.fabricd.diagnosis.Hosts.model;
import static io.fabricd.diagnosis.Hosts.of;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.diagnosis.Configs;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.model.finding.Finding;
import io.fabricd.diagnosis.Hosts;
import io.fabricd.model.finding.Severity;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PfcMissingTest {
    static final String CHECK = "pfc_missing";

    @Test
    void rdmaPriorityFromTrafficHasNoPfc() {
        // host E mlx5_0: PFC on 4, no rdma_cm ToS; the RDMA bytes run on priority 3
        List<Finding> f = of(model("host-e-roce-variants"), CHECK);
        assertThat(f).filteredOn(x -> Plain.subject(x).get("device").equals("mlx5_0")).singleElement().satisfies(x -> {
            assertThat(x.severity()).isEqualTo(Severity.CRITICAL);
            assertThat(Plain.subject(x)).containsEntry("priority", 3).containsEntry("netdev", "ens1f0np0");
            assertThat(Plain.evidence(x)).containsEntry("priority_rule", "traffic").containsEntry("pfc_enabled", List.of(4));
        });
    }

    @Test
    void pfcOffEverywhereIsCritical() {
        assertThat(of(model("host-e-roce-variants"), CHECK)).filteredOn(x -> Plain.subject(x).get("device").equals("mlx5_1"))
                .singleElement().satisfies(x -> {
                    assertThat(x.severity()).isEqualTo(Severity.CRITICAL);
                    assertThat(x.summary()).contains("off on every priority");
                });
    }

    @Test
    void healthyRocePortsAreNotFindings() {
        // host B: rdma_cm ToS 106 = DSCP 26 -> APP -> priority 3, PFC on 3
        assertThat(of(model("host-b-roce"), CHECK)).isEmpty();
        assertThat(of(model("host-e-roce-variants"), CHECK)).noneMatch(x -> Plain.subject(x).get("device").equals("mlx5_2"));
        assertThat(of(model("host-a-ib"), CHECK)).isEmpty(); // InfiniBand: no PFC to judge
    }

    @Test
    void noDcbSupportIsOnlyInfo() {
        assertThat(of(model("host-e-roce-variants"), CHECK)).filteredOn(x -> Plain.subject(x).get("device").equals("rxe0"))
                .singleElement().satisfies(x -> {
                    assertThat(x.severity()).isEqualTo(Severity.INFO);
                    // rxe0's veth0 has no driver link in sysfs: the driver is left out, never the string "null"
                    assertThat(Plain.evidence(x)).containsExactly(Map.entry("dcb_supported", false));
                });
        // captured by tools/capture-host.sh before it captured DCB: the state is unknown, so no claim at all
        assertThat(of(model("real-softroce-6.1"), CHECK)).isEmpty();
    }

    @Test
    void withoutDcbTheDriverStatisticsDecide(@TempDir Path tmp) throws Exception {
        // mlx5 lists rx/tx_prio3_pause: PFC is on for 3, the RDMA priority
        Path b = Hosts.copy("host-b-roce", tmp.resolve("b"));
        Hosts.delete(b, "fabricd/dcb/ens1f0np0.json");
        assertThat(of(Hosts.model(b), CHECK)).isEmpty();
        // no per-priority pause statistic at all: PFC is off everywhere, and the evidence says why
        Path txt = b.resolve("fabricd/ethtool/ens1f0np0.txt");
        Files.write(txt, Files.readAllLines(txt).stream().filter(l -> !l.contains("_pause")).toList());
        assertThat(of(Hosts.model(b), CHECK)).singleElement().satisfies(x -> {
            assertThat(x.severity()).isEqualTo(Severity.CRITICAL);
            assertThat(x.summary()).contains("off on every priority");
            assertThat((String) Plain.evidence(x).get("pfc_source")).startsWith("ethtool -S: mlx5_core lists rx/tx_prioN_pause only");
            assertThat(Plain.evidence(x)).doesNotContainKey("pfc_cap");
        });
        // neither DCB nor statistics: unknown, no finding
        Files.delete(txt);
        assertThat(of(Hosts.model(b), CHECK)).isEmpty();
    }

    @Test
    void tosMappedThroughTheDscpAppTable(@TempDir Path tmp) {
        // ToS 106 -> DSCP 26 -> priority 3 by the APP table; move PFC to 4 and the finding names rule default_roce_tos
        Path b = Hosts.copy("host-b-roce", tmp.resolve("b"));
        Hosts.json(b, "fabricd/dcb/ens1f0np0.json", n -> n.withObjectProperty("pfc").putArray("enabled").add(4));
        assertThat(of(Hosts.model(b), CHECK)).singleElement().satisfies(x -> {
            assertThat(x.severity()).isEqualTo(Severity.CRITICAL);
            assertThat(Plain.evidence(x)).containsEntry("priority_rule", "default_roce_tos").containsEntry("rdma_priority", 3);
        });
    }

    @Test
    void configuredPriorityWins() {
        DiagnosisConfig c = Configs.roce(new DiagnosisConfig.Roce(4, null));
        List<Finding> f = of(model("host-e-roce-variants"), null, c, CHECK);
        assertThat(f).noneMatch(x -> Plain.subject(x).get("device").equals("mlx5_0")); // PFC is on 4 there
        assertThat(f).filteredOn(x -> Plain.subject(x).get("device").equals("mlx5_2")).singleElement()
                .satisfies(x -> assertThat(Plain.evidence(x)).containsEntry("priority_rule", "config"));
    }

    @Test
    void theCommonDefaultAloneGivesOnlyAWarning(@TempDir Path tmp) {
        // no ToS, no traffic statistics: only the common default (3) is left, and PFC is on 4
        Path b = Hosts.copy("host-b-roce", tmp.resolve("b"));
        Hosts.delete(b, "sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos");
        Hosts.delete(b, "fabricd/ethtool/ens1f0np0.txt");
        Hosts.json(b, "fabricd/dcb/ens1f0np0.json", n -> n.withObjectProperty("pfc").putArray("enabled").add(4));
        assertThat(of(Hosts.model(b), CHECK)).singleElement().satisfies(x -> {
            assertThat(x.severity()).isEqualTo(Severity.WARNING);
            assertThat(Plain.evidence(x)).containsEntry("priority_rule", "default");
            assertThat(x.remediation()).contains("diagnosis.roce.priority");
        });
    }

    @Test
    void demoPlantedFault(@TempDir Path tmp) {
        List<Finding> f = of(Hosts.model(Hosts.demo(tmp.resolve("demo"))), CHECK);
        assertThat(f).singleElement().satisfies(x -> {
            assertThat(Plain.subject(x)).containsEntry("device", "mlx5_7").containsEntry("netdev", "ens8f0np0");
            assertThat(x.severity()).isEqualTo(Severity.CRITICAL);
        });
    }
}
