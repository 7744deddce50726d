package io.fabricd.diagnosis;

import io.fabricd.diagnosis.run.Diagnosis;
import io.fabricd.diagnosis.run.Report;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Severity;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.collectors.Fixtures;
import io.fabricd.collectors.pcie.PcieHosts;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * GPUDirect readiness beyond the peer-memory module, on host-d-topology with real config-space
 * dumps grafted on (PcieHosts): ACS redirect between a GPU and its NIC, IOMMU translation, and the
 * NIC's Max Read Request, Max Payload and relaxed ordering; and never a claim from what was not read.
 */
class GpuDirectReadinessTest {
    static final List<String> CHECKS = List.of("pcie_acs_redirect", "iommu_translation", "pcie_max_read_request", "pcie_max_payload",
            "pcie_relaxed_ordering");

    /** Device Control of the 82576's dump with Max Read Request 4096: nothing to say about the NIC. */
    static final int TUNED = 0x5830;

    static List<Finding> of(PcieHosts h, String check) {
        return Hosts.of(Hosts.model(h.root()), check);
    }

    @Test
    void acsRedirectOnTheSwitchPortsBetweenAGpuAndItsNic(@TempDir Path tmp) {
        PcieHosts h = PcieHosts.topology(tmp.resolve("h")).deviceControl(PcieHosts.NIC, TUNED).acs(PcieHosts.NIC_PORT, 0x1d);
        assertThat(of(h, "pcie_acs_redirect")).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.WARNING);
            assertThat(Plain.subject(f)).isEqualTo(Map.of("pci", PcieHosts.NIC_PORT));
            assertThat(Plain.evidence(f).get("acs_control")).isEqualTo("SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-");
            // the PIX GPU beside it and the PXB GPU two switches down both cross the NIC's port
            assertThat(Plain.evidence(f).get("pairs")).isEqualTo(List.of("GPU 0000:18:00.0 <-> mlx5_0 (PIX)",
                    "GPU 0000:1c:00.0 <-> mlx5_0 (PXB)"));
            assertThat(f.remediation()).contains("setpci -s 0000:17:01.0 ECAP_ACS+0x6.w=0000");
        });
        // the GPU's port too: a second finding
        h.acs(PcieHosts.GPU_PORT, 0x04);
        assertThat(of(h, "pcie_acs_redirect")).extracting(f -> Plain.subject(f).get("pci")).containsExactly(PcieHosts.GPU_PORT, PcieHosts.NIC_PORT);
    }

    @Test
    void acsThatDoesNotRedirectOrIsNotBetweenThemIsNoFinding(@TempDir Path tmp) {
        // ACS capable, every control off (the dump as it is)
        PcieHosts h = PcieHosts.topology(tmp.resolve("h"));
        assertThat(of(h, "pcie_acs_redirect")).isEmpty();
        // source validation alone redirects nothing
        h.acs(PcieHosts.NIC_PORT, 0x01);
        assertThat(of(h, "pcie_acs_redirect")).isEmpty();
        // redirect on the root port and the switch's upstream port, above where the GPU and NIC meet
        h.acs(PcieHosts.NIC_PORT, 0).acs("0000:15:01.0", 0x1d).acs("0000:16:00.0", 0x1d);
        assertThat(of(h, "pcie_acs_redirect")).isEmpty();
    }

    @Test
    void iommuTranslatingTheGpuAndNic(@TempDir Path tmp) {
        PcieHosts h = PcieHosts.topology(tmp.resolve("h")).deviceControl(PcieHosts.NIC, TUNED)
                .iommu("BOOT_IMAGE=/vmlinuz intel_iommu=on", "DMA-FQ", PcieHosts.NIC, PcieHosts.GPU);
        assertThat(of(h, "iommu_translation")).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.WARNING);
            assertThat((List<?>) Plain.evidence(f).get("translated")).hasSize(2);
            assertThat(Plain.evidence(f).get("cmdline")).isEqualTo(List.of("intel_iommu=on"));
            assertThat(Plain.evidence(f).get("iommu_units")).isEqualTo(List.of("dmar0"));
            assertThat(f.remediation()).contains("iommu=pt");
        });
    }

    @Test
    void iommuInPassthroughOrUnknownIsNoFinding(@TempDir Path tmp) {
        PcieHosts pt = PcieHosts.topology(tmp.resolve("pt")).iommu("intel_iommu=on iommu=pt", "identity", PcieHosts.NIC, PcieHosts.GPU);
        assertThat(of(pt, "iommu_translation")).isEmpty();
        // the fixture as it is: no IOMMU folder in the snapshot, so nothing is known
        assertThat(Hosts.of(Hosts.model("host-d-topology"), "iommu_translation")).isEmpty();
    }

    @Test
    void theNicsDeviceControl(@TempDir Path tmp) {
        // the 82576's own registers: Max Read Request 512, Max Payload 256 of 512 (the ports above support 256), RlxdOrd+
        PcieHosts h = PcieHosts.topology(tmp.resolve("h"));
        assertThat(of(h, "pcie_max_read_request")).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.WARNING);
            assertThat(Plain.subject(f)).isEqualTo(Map.of("pci", PcieHosts.NIC));
            assertThat(Plain.evidence(f)).containsEntry("max_read_request_bytes", 512);
            assertThat(f.remediation()).contains("setpci -s 0000:19:00.0 CAP_EXP+8.w=5000:7000");
        });
        assertThat(of(h, "pcie_max_payload")).as("256 is the most the ports above it support").isEmpty();
        assertThat(of(h, "pcie_relaxed_ordering")).isEmpty();

        // Max Payload 128 and relaxed ordering off, Max Read Request 4096
        h.deviceControl(PcieHosts.NIC, 0x5800);
        assertThat(of(h, "pcie_max_read_request")).isEmpty();
        assertThat(of(h, "pcie_max_payload")).singleElement().satisfies(f -> {
            assertThat(Plain.evidence(f)).containsEntry("max_payload_bytes", 128).containsEntry("path_allows_bytes", 256);
            assertThat(f.severity()).isEqualTo(Severity.WARNING);
        });
        assertThat(of(h, "pcie_relaxed_ordering")).singleElement().satisfies(f -> assertThat(f.severity()).isEqualTo(Severity.INFO));

        // one port above it read without privilege: what the path allows is unknown
        h.config("0000:16:00.0", Arrays.copyOf(Fixtures.lspciDump("pciutils-cap-pcie-1.lspci-xxxx.txt"), 64));
        assertThat(of(h, "pcie_max_payload")).isEmpty();
    }

    /**
     * fabricd not root: every config read is 64 bytes, and the checks claim nothing; pcie_config_blind
     * says once why, and the not-judged list names every subject each check could not judge.
     */
    @Test
    void anUnprivilegedReadClaimsNothing(@TempDir Path tmp) {
        PcieHosts h = PcieHosts.topology(tmp.resolve("h"));
        for (String bdf : new String[] {PcieHosts.NIC, PcieHosts.GPU, "0000:15:01.0", "0000:16:00.0", PcieHosts.GPU_PORT,
                PcieHosts.NIC_PORT}) {
            byte[] full = Fixtures.lspciDump(bdf.equals(PcieHosts.NIC) || bdf.equals(PcieHosts.GPU) ? "pciutils-cap-pcie-2.lspci-xxxx.txt"
                    : "pciutils-cap-pcie-1.lspci-xxxx.txt");
            h.config(bdf, Arrays.copyOf(full, 64));
        }
        Report r = Diagnosis.run(Hosts.model(h.root()), null);
        assertThat(r.findings()).noneMatch(f -> CHECKS.contains(f.check()));
        assertThat(r.findings()).filteredOn(f -> f.check().equals("pcie_config_blind")).singleElement()
                .satisfies(f -> assertThat(f.severity()).isEqualTo(Severity.INFO));
        assertThat(r.notJudged()).extracting(n -> n.check() + " " + n.subject().pci() + " " + n.reason().id()).containsExactly(
                "pcie_acs_redirect " + PcieHosts.GPU_PORT + " blind", "pcie_acs_redirect " + PcieHosts.NIC_PORT + " blind",
                "pcie_max_payload " + PcieHosts.NIC + " blind", "pcie_max_read_request " + PcieHosts.NIC + " blind",
                "pcie_relaxed_ordering " + PcieHosts.NIC + " blind");
    }
}
