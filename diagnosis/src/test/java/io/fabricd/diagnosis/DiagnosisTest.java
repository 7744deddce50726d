package io.fabricd.diagnosis;

import io.fabricd.diagnosis.run.Diagnosis;
import io.fabricd.diagnosis.run.Report;
import io.fabricd.model.finding.Severity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabricd.model.HostModel;
import io.fabricd.model.TransportCounters;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The engine: every id, every fixture, history handling, config, and the documentation. */
class DiagnosisTest {

    @Test
    void everyCheckOfTheSpecIsShippedOnce() {
        assertThat(Diagnosis.checkIds()).doesNotHaveDuplicates().containsExactlyInAnyOrder("link_down", "link_degraded",
                "pfc_missing", "global_pause_with_pfc", "ecn_disabled", "trust_mismatch", "mtu_mismatch", "roce_gid_missing",
                "gpudirect_off", "numa_misaffinity", "pcie_degraded", "counter_saturated", "port_errors_rising", "pause_storm",
                "qp_pressure", "transport_errors", "pcie_acs_redirect", "iommu_translation", "pcie_max_read_request",
                "pcie_max_payload", "pcie_relaxed_ordering", "pcie_config_blind", "hardware_missing",
                "probe_loss", "probe_latency", "bandwidth_low", "switch_pause_unexpected", "switch_pause_missing",
                "neighbor_speed_below_host", "topology_mismatch");
    }

    @Test
    void docsCoverEveryCheck() throws Exception {
        String doc = Files.readString(Path.of("..", "docs", "checks.md"));
        for (String id : Diagnosis.checkIds()) {
            assertThat(doc).as("docs/checks.md section for " + id).contains("\n## " + id + "\n");
        }
        // interfaces.md's table of check identifiers: every id once, nothing else
        String spec = Files.readString(Path.of("..", "docs", "spec", "interfaces.md"));
        String table = spec.substring(spec.indexOf("### Check identifiers"));
        table = table.substring(0, table.indexOf("\n\n", table.indexOf("| check |")));
        List<String> ids = Pattern.compile("(?m)^\\| `([a-z_]+)` \\|").matcher(table).results().map(m -> m.group(1)).toList();
        assertThat(ids).as("docs/spec/interfaces.md, Check identifiers").doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(Diagnosis.checkIds());
        assertThat(Files.readString(Path.of("..", "README.md"))).contains("with " + Diagnosis.checkIds().size() + " checks (");
    }

    @ParameterizedTest
    @ValueSource(strings = {"host-a-ib", "host-b-roce", "host-c-rxe", "host-broken", "host-d-topology", "host-e-roce-variants",
            "host-g-drivers", "real-softroce-6.1", "real/h100-some-down", "real/gpud-h100-mlx5_1"})
    void noCheckFailsOnAnyFixtureAlsoWithHistory(String fixture) {
        HostModel m = Hosts.model(fixture);
        HostModel earlier = m.withCollectedAt(m.collectedAt().minusSeconds(30));
        for (Report r : List.of(Diagnosis.run(m, null), Diagnosis.run(m, earlier))) {
            assertThat(r.findings()).noneMatch(f -> f.summary().contains(" failed: "));
            assertThat(r.findings()).allSatisfy(f -> {
                assertThat(f.summary()).isNotBlank();
                assertThat(f.remediation()).isNotBlank();
                assertThat(f.subject().parts().keySet()).isSubsetOf("device", "port", "netdev", "priority", "gpu", "pci");
            });
            // one finding per check and subject: fabric_finding series stay unique
            assertThat(r.findings().stream().map(f -> f.check() + f.subject()).toList()).doesNotHaveDuplicates();
        }
        // the same collection compared with itself 30 s earlier: nothing rose, so no rate finding
        assertThat(Diagnosis.run(m, earlier).findings()).noneMatch(f -> f.check().equals("port_errors_rising"));
    }

    @Test
    void healthyPortsOfTheFaultyDemoHostAreQuiet(@TempDir Path tmp) {
        HostModel m = Hosts.model(Hosts.demo(tmp.resolve("demo")));
        Report r = Diagnosis.run(m, null);
        Set<String> loud = r.findings().stream().filter(f -> f.severity().atLeast(Severity.WARNING))
                .map(f -> f.check() + " " + Plain.subject(f).getOrDefault("device", Plain.subject(f).getOrDefault("gpu", Plain.subject(f).get("pci"))))
                .collect(Collectors.toSet());
        // exactly the planted problems (tools/hostgen.py host_demo)
        assertThat(loud).containsExactlyInAnyOrder("pfc_missing mlx5_7", "mtu_mismatch mlx5_6", "counter_saturated mlx5_3",
                "numa_misaffinity 0000:dc:00.0", "pcie_acs_redirect 0000:4a:01.0", "pcie_max_read_request 0000:af:00.0");
    }

    @Test
    void historyIsOnlyUsedWhenItIsEarlierAndOfTheSameHost() {
        HostModel m = Hosts.model("host-a-ib");
        Check.History h = Diagnosis.CHECKS.stream().filter(c -> c.id().equals("pause_storm")).findFirst().orElseThrow().history();
        assertThat(h).isEqualTo(Check.History.PARTIAL);
        assertThat(Diagnosis.run(m, m.withCollectedAt(m.collectedAt().minusSeconds(5))).checksWithoutHistory()).isEmpty();
        assertThat(Diagnosis.run(m, m.withCollectedAt(m.collectedAt().plusSeconds(5))).checksWithoutHistory())
                .contains("port_errors_rising", "pause_storm", "ecn_disabled", "qp_pressure");
        HostModel other = Hosts.model("host-b-roce").withCollectedAt(m.collectedAt().minusSeconds(5));
        assertThat(Diagnosis.run(m, other).checksWithoutHistory()).contains("port_errors_rising");
    }

    @Test
    void disabledChecksDoNotRun() {
        DiagnosisConfig c = Configs.disabled(List.of("pfc_missing", "port_errors_rising"));
        c.validate(Diagnosis.checkIds());
        Report r = Diagnosis.run(Hosts.model("host-e-roce-variants"), null, c);
        assertThat(r.findings()).noneMatch(f -> f.check().equals("pfc_missing"));
        assertThat(r.checksWithoutHistory()).doesNotContain("port_errors_rising");
    }

    @Test
    void configValidationNamesTheKey() {
        DiagnosisConfig c = Configs.disabled(List.of("pfc_mising"));
        assertThatThrownBy(() -> c.validate(Diagnosis.checkIds())).hasMessageContaining("diagnosis.disabled_checks")
                .hasMessageContaining("pfc_mising");
        DiagnosisConfig p = Configs.roce(new DiagnosisConfig.Roce(8, null));
        assertThatThrownBy(() -> p.validate(Diagnosis.checkIds())).hasMessageContaining("diagnosis.roce.priority");
        DiagnosisConfig t = Configs.roce(new DiagnosisConfig.Roce(null, "vlan"));
        // the tools print DSCP; the configuration takes any case
        assertThat(Configs.roce(new DiagnosisConfig.Roce(null, "DSCP")).roce().trust()).isEqualTo("dscp");
        assertThatThrownBy(() -> t.validate(Diagnosis.checkIds())).hasMessageContaining("diagnosis.roce.trust");
    }

    @Test
    void rates() {
        assertThat(Rate.parse("120/h").perSecond()).isEqualTo(120.0 / 3600);
        assertThat(Rate.parse("5/m").perSecond()).isEqualTo(5.0 / 60);
        assertThat(Rate.parse("10/s").perSecond()).isEqualTo(10.0);
        assertThat(Rate.parse("2.5").perSecond()).isEqualTo(2.5);
        assertThat(Rate.parse("0").exceeded(1, 3600)).isTrue();
        assertThat(Rate.parse("0").exceeded(0, 1)).isFalse();
        assertThat(Rate.parse("120/h").exceeded(3, 60)).isTrue();
        assertThat(Rate.parse("120/h").exceeded(1, 60)).isFalse();
        for (String bad : List.of("", "x", "-1/s", "5/d", "1e3")) {
            assertThatThrownBy(() -> Rate.parse(bad)).hasMessageContaining("is not a rate");
        }
        assertThat(DiagnosisConfig.DEFAULT.portErrorThresholds()).containsKeys("symbol_error", "link_downed")
                .containsEntry("symbol_error", Rate.parse("120/h"));
    }

    @Test
    void everyTransportTypeHasADefaultThreshold() {
        assertThat(DiagnosisConfig.DEFAULT_TRANSPORT_ERRORS.keySet()).containsExactlyInAnyOrderElementsOf(
                Arrays.stream(TransportCounters.Type.values())
                        .map(TransportCounters.Type::label).toList());
    }
}
