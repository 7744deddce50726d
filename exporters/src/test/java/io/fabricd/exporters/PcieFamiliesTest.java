package io.fabricd.exporters;

import static io.fabricd.testing.PromText.s;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.collectors.CollectorConfig;
import io.fabricd.collectors.Fixtures;
import io.fabricd.collectors.HostCollection;
import io.fabricd.collectors.pcie.PcieHosts;
import io.fabricd.collectors.source.SnapshotHostSource;
import io.fabricd.testing.PromText;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The config-space and IOMMU families on host-d-topology with real config dumps grafted on (PcieHosts). */
class PcieFamiliesTest {

    static Map<String, Double> metrics(Path root) {
        return PromText.parse(new String(Exposition.render(FabricMetrics.build(
                HostCollection.standard(CollectorConfig.DEFAULT).collect(SnapshotHostSource.open(root)), false), null).body(),
                StandardCharsets.UTF_8));
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
