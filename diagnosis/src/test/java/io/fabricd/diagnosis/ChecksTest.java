package io.fabricd.diagnosis;

import io.fabricd.diagnosis.run.Diagnosis;
import io.fabricd.diagnosis.run.Report;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Severity;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.diagnosis.inventory.Inventory;
import io.fabricd.model.HostModel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Positive and negative fixture cases of link_down, counter_saturated, gpudirect_off, numa_misaffinity, pcie_degraded, and the report. */
class ChecksTest {

    static HostModel model(String fixture) {
        return Hosts.model(fixture);
    }

    static List<Finding> of(Report r, String check) {
        return r.findings().stream().filter(f -> f.check().equals(check)).toList();
    }

    @Test
    void healthyInfinibandHostHasNoCriticalOrWarning() {
        Report r = Diagnosis.run(model("host-a-ib"), null);
        assertThat(r.hasAtLeast(Severity.WARNING)).as(r.toText(false, false)).isFalse();
        // one collection shows the transport and link error counters' totals since the driver loaded, as info
        assertThat(r.findings()).extracting(Finding::check).containsExactly("port_errors_rising", "transport_errors");
        assertThat(r.findings()).allSatisfy(f -> assertThat(f.severity()).isEqualTo(Severity.INFO));
    }

    @Test
    void linkDown(@TempDir Path tmp) throws Exception {
        assertThat(of(Diagnosis.run(model("host-b-roce"), null), "link_down")).isEmpty();
        // variants of host A's port: no SM, cable unplugged, administratively disabled
        // (and, when nothing expects the port up: a cabled port is still a fault, an empty one inventory)
        for (String[] v : new String[][] {{"2: INIT", "5: LinkUp", "no subnet manager", "WARNING"},
                {"1: DOWN", "2: Polling", "no link partner", "INFO"}, {"1: DOWN", "3: Disabled", null, null}}) {
            Path root = Hosts.copy("host-a-ib", tmp.resolve("a" + v[1].charAt(0)));
            Path port = root.resolve("sys/class/infiniband/mlx5_0/ports/1");
            Files.writeString(port.resolve("state"), v[0] + "\n");
            Files.writeString(port.resolve("phys_state"), v[1] + "\n");
            HostModel down = Hosts.model(root);
            // the inventory saw the port up: it must be up
            Inventory saw = Inventory.of(model("host-a-ib"), Instant.parse("2026-11-01T00:00:00Z"), Inventory.LEARNED);
            List<Finding> f = of(Diagnosis.run(down, null, saw, DiagnosisConfig.DEFAULT), "link_down");
            if (v[2] == null) {
                assertThat(f).as("admin-disabled is not a finding").isEmpty();
                assertThat(of(Diagnosis.run(down, null), "link_down")).isEmpty();
            } else {
                assertThat(f).singleElement().satisfies(x -> {
                    assertThat(x.severity()).isEqualTo(Severity.CRITICAL);
                    assertThat(Plain.subject(x)).containsEntry("device", "mlx5_0").containsEntry("port", 1);
                    assertThat(x.summary()).contains(v[2]);
                    assertThat(Plain.evidence(x)).containsEntry("expected_up", true);
                });
                // nothing expects it up (no inventory, no sibling card)
                assertThat(of(Diagnosis.run(down, null), "link_down")).singleElement()
                        .satisfies(x -> assertThat(x.severity()).isEqualTo(Severity.valueOf(v[3])));
                // an inventory accepted with the port down: still not expected
                Inventory accepted = Inventory.of(down, Instant.parse("2026-11-01T00:00:00Z"), Inventory.ACCEPTED);
                assertThat(of(Diagnosis.run(down, null, accepted, DiagnosisConfig.DEFAULT), "link_down")).singleElement()
                        .satisfies(x -> assertThat(x.severity()).isEqualTo(Severity.valueOf(v[3])));
                // configured as expected
                DiagnosisConfig cfg = Configs.link(new DiagnosisConfig.Link(null, List.of("mlx5_*/1")));
                assertThat(of(Diagnosis.run(down, null, null, cfg), "link_down")).singleElement()
                        .satisfies(x -> assertThat(x.severity()).isEqualTo(Severity.CRITICAL));
            }
        }
        // a port whose state cannot be read is unknown, never critical
        assertThat(of(Diagnosis.run(model("host-broken"), null), "link_down"))
                .noneMatch(x -> Plain.subject(x).get("device").equals("mlx5_1"));
    }

    @Test
    void counterSaturated(@TempDir Path tmp) throws Exception {
        // host-broken's link_downed reads 2^64-1: above 255 it proves the counter wider, not pinned
        assertThat(of(Diagnosis.run(model("host-broken"), null), "counter_saturated")).isEmpty();
        Path root = Hosts.copy("host-a-ib", tmp.resolve("a"));
        Files.writeString(root.resolve("sys/class/infiniband/mlx5_0/ports/1/counters/link_downed"), "255\n");
        List<Finding> f = of(Diagnosis.run(Hosts.model(root), null), "counter_saturated");
        assertThat(f).singleElement().satisfies(x -> {
            assertThat(Plain.subject(x)).isEqualTo(Map.of("device", "mlx5_0", "port", 1, "netdev", "ibp25s0"));
            assertThat(Plain.evidence(x).get("saturated")).isEqualTo(List.of(Map.of("counter", "link_downed", "kind", "error",
                    "value", "255", "width_bits", 8)));
            assertThat(x.severity()).isEqualTo(Severity.WARNING);
        });
        assertThat(of(Diagnosis.run(model("host-a-ib"), null), "counter_saturated")).isEmpty();
    }

    @Test
    void gpuDirectOff() {
        assertThat(of(Diagnosis.run(model("host-d-topology"), null), "gpudirect_off")).singleElement()
                .satisfies(x -> assertThat(x.severity()).isEqualTo(Severity.CRITICAL));
        assertThat(of(Diagnosis.run(model("host-a-ib"), null), "gpudirect_off")).isEmpty(); // peermem loaded
        assertThat(of(Diagnosis.run(model("host-c-rxe"), null), "gpudirect_off")).isEmpty(); // no GPU
    }

    @Test
    void numaMisaffinity() {
        // host B: GPU 0000:ca:00.0 on NUMA node 1, the only NIC on node 0
        assertThat(of(Diagnosis.run(model("host-b-roce"), null), "numa_misaffinity")).singleElement()
                .satisfies(x -> assertThat(Plain.subject(x)).isEqualTo(Map.of("gpu", "0000:ca:00.0")));
        // host D: the SYS GPU is flagged, the numa -1 GPU (unknown) is not
        assertThat(of(Diagnosis.run(model("host-d-topology"), null), "numa_misaffinity"))
                .extracting(x -> Plain.subject(x).get("gpu")).containsExactly("0000:9b:00.0");
        assertThat(of(Diagnosis.run(model("host-a-ib"), null), "numa_misaffinity")).isEmpty();
    }

    @Test
    void pcieDegraded() {
        assertThat(of(Diagnosis.run(model("host-d-topology"), null), "pcie_degraded"))
                .extracting(x -> Plain.subject(x).get("pci")).containsExactly("0000:19:00.0"); // x8 of x16; not the Gen5-in-Gen4 GPU, not idle GPUs
        assertThat(of(Diagnosis.run(model("host-a-ib"), null), "pcie_degraded")).isEmpty(); // GPU idle at 2.5 GT/s
    }

    @Test
    void reportFormats() {
        Report r = Diagnosis.run(model("host-d-topology"), null);
        assertThat(r.toText(false, false)).contains("CRITICAL (1)", "[gpudirect_off]", "WARNING", "fix: ").doesNotContain("\u001b[");
        assertThat(r.toText(true, false)).contains("\u001b[1;31m");
        assertThat(r.toJson()).contains("\"host\" : \"topo-node-01\"", "\"check\" : \"pcie_degraded\"",
                "\"severity\" : \"warning\"", "\"subject\" : {", "\"duration_seconds\"");
        assertThat(r.findings().get(0).severity()).isEqualTo(Severity.CRITICAL); // most severe first
    }
}
