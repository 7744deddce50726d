package io.fabricd.diagnosis.checks;

import io.fabricd.diagnosis.Plain;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.diagnosis.Hosts;
import io.fabricd.diagnosis.inventory.Inventory;
import io.fabricd.diagnosis.run.Diagnosis;
import io.fabricd.model.HostModel;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Severity;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** hardware_missing against an inventory learned from the fixture host as it was. */
class HardwareMissingTest {
    static final Instant LEARNED = Instant.parse("2026-11-01T00:00:00Z");

    static List<Finding> missing(HostModel now, Inventory inv, DiagnosisConfig cfg) {
        return Diagnosis.run(now, null, inv, cfg).findings().stream().filter(f -> f.check().equals("hardware_missing")).toList();
    }

    @Test
    void aHostWithEverythingItHadIsQuiet() {
        HostModel m = Hosts.model("host-f-big");
        Inventory inv = Inventory.of(m, LEARNED, Inventory.LEARNED);
        assertThat(inv.devices()).hasSize(16);
        assertThat(inv.pci()).extracting(Inventory.Pci::kind).contains("gpu", "nic");
        assertThat(missing(m, inv, DiagnosisConfig.DEFAULT)).isEmpty();
        assertThat(inv.learn(m)).as("nothing new: the same object, nothing to write").isSameAs(inv);
    }

    @Test
    void aDeviceWhoseDriverUnboundIsOneCriticalFinding(@TempDir Path tmp) throws Exception {
        Path root = Hosts.copy("host-f-big", tmp.resolve("h"));
        Inventory inv = Inventory.of(Hosts.model(root), LEARNED, Inventory.LEARNED);
        Path link = root.resolve("sys/class/infiniband/mlx5_6");
        Path real = link.toRealPath();
        Files.delete(link);
        deleteTree(real);
        List<Finding> f = missing(Hosts.model(root), inv, DiagnosisConfig.DEFAULT);
        assertThat(f).singleElement().satisfies(x -> {
            assertThat(x.severity()).isEqualTo(Severity.CRITICAL);
            assertThat(Plain.subject(x)).containsEntry("device", "mlx5_6").containsKey("pci");
            assertThat(x.summary()).contains("mlx5_6").contains("gone");
            assertThat(Plain.evidence(x)).containsEntry("pci_function", "not known without its RDMA device");
            assertThat(x.remediation()).contains("fabricd inventory accept");
        });
    }

    @Test
    void aGpuThatReadsAllOnesOrLeftTheBusIsCritical(@TempDir Path tmp) throws Exception {
        Path root = Hosts.copy("host-f-big", tmp.resolve("h"));
        Inventory inv = Inventory.of(Hosts.model(root), LEARNED, Inventory.LEARNED);
        Hosts.write(root, "sys/bus/pci/devices/0000:18:00.0/current_link_width", "63\n");
        Hosts.write(root, "sys/bus/pci/devices/0000:18:00.0/current_link_speed", "Unknown\n");
        HostModel offBus = Hosts.model(root);
        assertThat(missing(offBus, inv, DiagnosisConfig.DEFAULT)).singleElement().satisfies(x -> {
            assertThat(x.severity()).isEqualTo(Severity.CRITICAL);
            assertThat(Plain.subject(x)).containsEntry("pci", "0000:18:00.0").containsEntry("gpu", "0000:18:00.0");
            assertThat(x.summary()).contains("reads all ones");
        });
        // its width of 63 lanes is no width: not exported, not a degraded link
        assertThat(Diagnosis.run(offBus, null, inv, DiagnosisConfig.DEFAULT).findings()).noneMatch(x -> x.check().equals("pcie_degraded"));

        Path gone = root.resolve("sys/bus/pci/devices/0000:18:00.0");
        Path real = gone.toRealPath();
        Files.delete(gone);
        deleteTree(real);
        assertThat(missing(Hosts.model(root), inv, DiagnosisConfig.DEFAULT)).singleElement()
                .satisfies(x -> assertThat(x.summary()).contains("fell off the PCIe bus"));
    }

    @Test
    void aHostWithoutRdmaDevicesIsCriticalUnlessExpected(@TempDir Path tmp) throws Exception {
        Path root = Hosts.copy("host-a-ib", tmp.resolve("h"));
        deleteTree(root.resolve("sys/class/infiniband"));
        HostModel none = Hosts.model(root);
        assertThat(missing(none, null, DiagnosisConfig.DEFAULT)).singleElement().satisfies(x -> {
            assertThat(x.severity()).isEqualTo(Severity.CRITICAL);
            assertThat(x.summary()).contains("no RDMA device");
        });
        DiagnosisConfig off = DiagnosisConfig.DEFAULT.withExpectRdmaDevices(false);
        assertThat(missing(none, null, off)).isEmpty();
        // accepted as a host without RDMA: nothing expected
        assertThat(missing(none, Inventory.of(none, LEARNED, Inventory.ACCEPTED), DiagnosisConfig.DEFAULT)).isEmpty();
        // learned while the driver was not loaded yet: still expects RDMA
        assertThat(missing(none, Inventory.of(none, LEARNED, Inventory.LEARNED), DiagnosisConfig.DEFAULT)).hasSize(1);
    }

    @Test
    void whileTheHostBootsMissingHardwareIsInfo(@TempDir Path tmp) throws Exception {
        Path root = Hosts.copy("host-f-big", tmp.resolve("h"));
        Inventory inv = Inventory.of(Hosts.model(root), LEARNED, Inventory.LEARNED);
        Path link = root.resolve("sys/class/infiniband/mlx5_6");
        Path real = link.toRealPath();
        Files.delete(link);
        deleteTree(real);
        Instant at = Instant.parse("2026-11-02T00:00:00Z");
        Hosts.write(root, "proc/stat", "btime " + (at.getEpochSecond() - 120) + "\n");
        HostModel booting = Hosts.model(root, at);
        assertThat(missing(booting, inv, DiagnosisConfig.DEFAULT)).singleElement().satisfies(x -> {
            assertThat(x.severity()).isEqualTo(Severity.INFO);
            assertThat(x.summary()).contains("booted less than 10 min ago");
        });
        HostModel later = Hosts.model(root, at.plusSeconds(3600));
        assertThat(missing(later, inv, DiagnosisConfig.DEFAULT)).singleElement()
                .satisfies(x -> assertThat(x.severity()).isEqualTo(Severity.CRITICAL));
    }

    @Test
    void aDeviceRenamedAtBootIsPresent() {
        HostModel m = Hosts.model("host-a-ib");
        Inventory inv = Inventory.of(m, LEARNED, Inventory.LEARNED);
        Inventory.Device d = inv.devices().get(0);
        Inventory renamed = new Inventory(Inventory.FORMAT, inv.host(), inv.origin(), inv.acceptedAt(), inv.updatedAt(),
                List.of(new Inventory.Device("mlx5_9", d.nodeGuid(), d.pci(), d.ports())), inv.pci());
        assertThat(missing(m, renamed, DiagnosisConfig.DEFAULT)).isEmpty();
    }

    static void deleteTree(Path p) throws Exception {
        try (var s = Files.walk(p)) {
            for (Path x : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(x);
            }
        }
    }
}
