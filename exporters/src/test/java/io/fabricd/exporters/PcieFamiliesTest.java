package io.fabricd.exporters;

import static io.fabricd.testing.PromText.s;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.collectors.CollectorConfig;
import io.fabricd.collectors.Fixtures;
import io.fabricd.collectors.pcie.PcieHosts;
import io.fabricd.collectors.run.HostCollection;
import io.fabricd.collectors.source.SnapshotHostSource;
import io.fabricd.diagnosis.run.Diagnosis;
import io.fabricd.diagnosis.run.Report;
import io.fabricd.model.HostModel;
import io.fabricd.testing.PromText;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The config-space and IOMMU families on host-d-topology with real config dumps grafted on (PcieHosts). */
class PcieFamiliesTest {

    static Map<String, Double> metrics(Path root) {
        return PromText.parse(new String(Exposition.render(FabricMetrics.build(
                HostCollection.standard(CollectorConfig.DEFAULT).collect(SnapshotHostSource.open(root)), false, List.of()), null).body(),
                StandardCharsets.UTF_8));
    }

    static List<Double> series(Map<String, Double> v, String prefix) {
        return v.entrySet().stream().filter(e -> e.getKey().startsWith(prefix)).map(Map.Entry::getValue).toList();
    }

    @Test
    void registersAcsAndIommuMode(@TempDir Path tmp) {
        PcieHosts h = PcieHosts.topology(tmp.resolve("h")).acs(PcieHosts.NIC_PORT, 0x1d).iommu("iommu=pt", "identity", PcieHosts.NIC);
        Map<String, Double> v = metrics(h.root());
        String[] nic = {"pci", PcieHosts.NIC, "kind", "nic"};
        assertThat(v).containsEntry(s("fabric_pci_config_bytes_read", nic), 4096.0);
        assertThat(v).containsEntry(s("fabric_pci_max_read_request_bytes", nic), 512.0);
        assertThat(v).containsEntry(s("fabric_pci_max_payload_bytes", nic), 256.0);
        assertThat(v).containsEntry(s("fabric_pci_max_payload_supported_bytes", nic), 512.0);
        assertThat(v).containsEntry(s("fabric_pci_relaxed_ordering_enabled", nic), 1.0);
        // the port's ACS: one series per control its capability has (SV TB RR CR UF), none for the others
        String port = PcieHosts.NIC_PORT;
        assertThat(v).containsEntry(s("fabric_pci_acs_control", "pci", port, "kind", "bridge", "control", "request_redirect"), 1.0);
        assertThat(v).containsEntry(s("fabric_pci_acs_control", "pci", port, "kind", "bridge", "control", "translation_blocking"), 0.0);
        assertThat(v).doesNotContainKey(s("fabric_pci_acs_control", "pci", port, "kind", "bridge", "control", "egress_control"));
        assertThat(v).containsEntry(s("fabric_pci_iommu_mode", "pci", PcieHosts.NIC, "kind", "nic", "mode", "passthrough"), 1.0);
        assertThat(v).containsEntry(s("fabric_pci_iommu_mode", "pci", PcieHosts.GPU, "kind", "gpu", "mode", "off"), 1.0);
        assertThat(v).containsEntry("fabric_iommu_units", 1.0);
    }

    /**
     * The demo as a snapshot taken without CAP_SYS_ADMIN (64-byte config files): every tracked
     * function says 64 bytes, no register family has a series, and pcie_config_blind is one info
     * finding of the host (no subject) with its words.
     */
    @Test
    void aSnapshotWithoutCapSysAdminSaysHowMuchItRead(@TempDir Path tmp) {
        Path demo = Fixtures.demo(tmp.resolve("demo"));
        HostModel whole = HostCollection.standard(CollectorConfig.DEFAULT).collect(SnapshotHostSource.open(demo));
        assertThat(series(metrics(demo), "fabric_pci_config_bytes_read{")).hasSize(whole.pcieConfig().size()).containsOnly(4096.0);

        Fixtures.truncateConfigSpaces(demo, 64);
        HostModel m = HostCollection.standard(CollectorConfig.DEFAULT).collect(SnapshotHostSource.open(demo));
        Map<String, Double> v = PromText.parse(new String(Exposition.render(FabricMetrics.build(m, false,
                Diagnosis.run(m, null).findings()), null).body(), StandardCharsets.UTF_8));
        assertThat(series(v, "fabric_pci_config_bytes_read{")).hasSize(whole.pcieConfig().size()).containsOnly(64.0);
        assertThat(v).containsEntry(s("fabric_pci_config_bytes_read", "pci", "0000:af:00.0", "kind", "nic"), 64.0)
                .containsEntry(s("fabric_pci_config_bytes_read", "pci", "0000:4a:01.0", "kind", "bridge"), 64.0);
        assertThat(v.keySet()).noneMatch(k -> k.startsWith("fabric_pci_max_") || k.startsWith("fabric_pci_relaxed_ordering_enabled")
                || k.startsWith("fabric_pci_acs_control"));
        assertThat(v).containsEntry(s("fabric_finding", "check", "pcie_config_blind", "severity", "info", "device", "", "port", "",
                "netdev", "", "priority", "", "gpu", "", "pci", "", "peer", "", "direction", ""), 1.0);
        assertThat(v.keySet()).filteredOn(k -> k.startsWith("fabric_finding_text{") && k.contains("check=\"pcie_config_blind\""))
                .singleElement().asString().contains("read only 64 bytes").contains("pcie.fullConfigSpace: true")
                .contains("AmbientCapabilities=CAP_SYS_ADMIN").contains("fabricd diagnose` as root");
    }

    /**
     * A NIC whose capability list loops: no register series, and one fabric_check_not_judged series
     * per check that could not judge it, with the reason and the subject labels of fabric_finding.
     */
    @Test
    void whatCouldNotBeJudgedHasASeriesPerCheckAndSubject(@TempDir Path tmp) {
        PcieHosts h = PcieHosts.topology(tmp.resolve("h"));
        byte[] loop = Fixtures.lspciDump("pciutils-cap-pcie-2.lspci-xxxx.txt");
        loop[0xa1] = 0x40; // the PCI Express capability points back to the first capability
        h.config(PcieHosts.NIC, loop);
        HostModel m = HostCollection.standard(CollectorConfig.DEFAULT).collect(SnapshotHostSource.open(h.root()));
        Report r = Diagnosis.run(m, null);
        Map<String, Double> v = PromText.parse(new String(Exposition.render(FabricMetrics.build(m, false, r.findings(), r.notJudged(),
                null), null).body(), StandardCharsets.UTF_8));
        String[] nic = {"pci", PcieHosts.NIC, "kind", "nic"};
        assertThat(v).containsEntry(s("fabric_pci_config_bytes_read", nic), 4096.0);
        assertThat(v).doesNotContainKey(s("fabric_pci_max_read_request_bytes", nic));
        for (String check : List.of("pcie_max_payload", "pcie_max_read_request", "pcie_relaxed_ordering")) {
            assertThat(v).containsEntry(s("fabric_check_not_judged", "check", check, "reason", "malformed", "device", "", "port", "",
                    "netdev", "", "priority", "", "gpu", "", "pci", PcieHosts.NIC, "peer", "", "direction", ""), 1.0);
        }
        assertThat(v.keySet()).filteredOn(k -> k.startsWith("fabric_check_not_judged{")).hasSize(3);
        assertThat(v.keySet()).noneMatch(k -> k.startsWith("fabric_finding{") && k.contains("pcie_max_read_request"));
        // without the list (the findings alone), no series
        assertThat(metrics(h.root()).keySet()).noneMatch(k -> k.startsWith("fabric_check_not_judged"));
    }

    /** What was not read has no series: a 64-byte read has only its size, a snapshot without IOMMU files no mode. */
    @Test
    void unknownIsAbsent(@TempDir Path tmp) {
        PcieHosts h = PcieHosts.topology(tmp.resolve("h"));
        h.config(PcieHosts.NIC, Arrays.copyOf(Fixtures.lspciDump("pciutils-cap-pcie-2.lspci-xxxx.txt"), 64));
        Map<String, Double> v = metrics(h.root());
        String[] nic = {"pci", PcieHosts.NIC, "kind", "nic"};
        assertThat(v).containsEntry(s("fabric_pci_config_bytes_read", nic), 64.0);
        assertThat(v).doesNotContainKey(s("fabric_pci_max_read_request_bytes", nic));
        assertThat(v).doesNotContainKey(s("fabric_pci_relaxed_ordering_enabled", nic));
        assertThat(v.keySet()).noneMatch(k -> k.startsWith("fabric_pci_iommu_mode") || k.startsWith("fabric_iommu_units"));
    }
}
