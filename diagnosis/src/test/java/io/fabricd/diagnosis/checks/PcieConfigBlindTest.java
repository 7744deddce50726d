package io.fabricd.diagnosis.checks;

import io.fabricd.diagnosis.Plain;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.collectors.Fixtures;
import io.fabricd.model.HostModel;
import io.fabricd.model.PcieConfig;
import io.fabricd.collectors.pcie.PcieHosts;
import io.fabricd.diagnosis.Diagnosis;
import io.fabricd.model.finding.Finding;
import io.fabricd.diagnosis.Hosts;
import io.fabricd.model.finding.Severity;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * pcie_config_blind: fabricd without CAP_SYS_ADMIN reads 64 bytes of each config space (a snapshot
 * taken so holds 64-byte files), and says once per host which PCIe checks that leaves blind; a
 * whole read says nothing, a function that reads all ones is gone, not blind.
 */
class PcieConfigBlindTest {
    static final List<String> PCIE_CHECKS = List.of("pcie_acs_redirect", "pcie_max_read_request", "pcie_max_payload",
            "pcie_relaxed_ordering");

    static List<Finding> blind(Path root) {
        return Hosts.of(Hosts.model(root), "pcie_config_blind");
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object o) {
        return (List<Object>) o;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }

    static byte[] cut(String capture) {
        return Arrays.copyOf(Fixtures.lspciDump(capture), 64);
    }

    @Test
    void theDemoReadWholeIsQuiet(@TempDir Path tmp) {
        assertThat(blind(Fixtures.demo(tmp.resolve("demo")))).isEmpty();
        // fixtures without config files: nothing was read, nothing was cut
        assertThat(Hosts.of(Hosts.model("host-f-big"), "pcie_config_blind")).isEmpty();
    }

    /** The demo as `fabricd snapshot` writes it without CAP_SYS_ADMIN: one info finding naming every PCIe check and function. */
    @Test
    void theDemoSnapshottedWithoutCapSysAdmin(@TempDir Path tmp) {
        Path demo = Fixtures.demo(tmp.resolve("demo"));
        Fixtures.truncateConfigSpaces(demo, 64);
        HostModel m = Hosts.model(demo);
        List<String> functions = m.pcieConfig().stream().map(PcieConfig::address).sorted().toList();
        List<Finding> all = Diagnosis.run(m, null).findings();

        assertThat(all).filteredOn(f -> f.check().equals("pcie_config_blind")).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.INFO);
            assertThat(Plain.subject(f)).isEmpty();
            assertThat(f.summary()).contains("64 bytes").contains(functions.size() + " PCI functions")
                    .contains("pcie_acs_redirect, pcie_max_read_request, pcie_max_payload, pcie_relaxed_ordering").contains("CAP_SYS_ADMIN");
            assertThat(Plain.evidence(f).get("config_bytes_read")).isEqualTo(List.of(64));
            assertThat(list(Plain.evidence(f).get("functions"))).extracting(x -> map(x).get("pci"))
                    .containsExactlyElementsOf(functions);
            assertThat(list(Plain.evidence(f).get("functions"))).allSatisfy(x -> assertThat(map(x)).containsEntry("config_bytes_read", 64));
            Map<String, Object> blind = map(Plain.evidence(f).get("blind_checks"));
            assertThat(blind.keySet()).containsExactlyElementsOf(PCIE_CHECKS);
            assertThat(list(blind.get("pcie_acs_redirect"))).contains("0000:4a:01.0"); // the demo's planted ACS redirect
            assertThat(list(blind.get("pcie_max_read_request"))).contains("0000:af:00.0"); // and its planted Max Read Request
            assertThat(f.remediation()).contains("`pcie.fullConfigSpace: true`").contains("AmbientCapabilities=CAP_SYS_ADMIN")
                    .contains("`fabricd diagnose` as root");
        });
        // the blind checks claim nothing, and say nothing of their own about it: one finding says it for all
        assertThat(all).filteredOn(f -> PCIE_CHECKS.contains(f.check())).isEmpty();
        // the demo's planted PCIe problems come back once the whole config space is read
        assertThat(Diagnosis.run(Hosts.model(Fixtures.demo(tmp.resolve("whole"))), null).findings())
                .extracting(Finding::check).contains("pcie_acs_redirect", "pcie_max_read_request").doesNotContain("pcie_config_blind");
    }

    /** Each function cut blinds the checks that judge a register of it, and only those. */
    @Test
    void whatEachCutFunctionBlinds(@TempDir Path tmp) {
        PcieHosts h = PcieHosts.topology(tmp.resolve("h"));
        assertThat(blind(h.root())).isEmpty();

        // the NIC: its Device Control and Capabilities, the three NIC checks
        h.config(PcieHosts.NIC, cut("pciutils-cap-pcie-2.lspci-xxxx.txt"));
        assertThat(blind(h.root())).singleElement().satisfies(f -> {
            assertThat(f.summary()).contains("64 bytes of the config space of 1 PCI function,")
                    .contains("pcie_max_read_request, pcie_max_payload, pcie_relaxed_ordering cannot judge it").doesNotContain("pcie_acs_redirect");
            assertThat(Plain.evidence(f).get("blind_checks")).isEqualTo(Map.of("pcie_max_read_request", List.of(PcieHosts.NIC),
                    "pcie_max_payload", List.of(PcieHosts.NIC), "pcie_relaxed_ordering", List.of(PcieHosts.NIC)));
            assertThat(Plain.evidence(f).get("functions")).isEqualTo(List.of(Map.of("pci", PcieHosts.NIC, "kind", "nic", "config_bytes_read", 64)));
        });

        // the NIC's switch port instead: what the NIC's path allows, and the ACS between it and the GPU
        h.config(PcieHosts.NIC, Fixtures.lspciDump("pciutils-cap-pcie-2.lspci-xxxx.txt")).config(PcieHosts.NIC_PORT,
                cut("pciutils-cap-pcie-1.lspci-xxxx.txt"));
        assertThat(blind(h.root())).singleElement().satisfies(f -> assertThat(Plain.evidence(f).get("blind_checks"))
                .isEqualTo(Map.of("pcie_acs_redirect", List.of(PcieHosts.NIC_PORT), "pcie_max_payload", List.of(PcieHosts.NIC_PORT))));

        // a GPU alone: no check reads its registers, yet its read is said
        h.acs(PcieHosts.NIC_PORT, 0).config(PcieHosts.GPU, cut("pciutils-cap-pcie-2.lspci-xxxx.txt"));
        assertThat(blind(h.root())).singleElement().satisfies(f -> {
            assertThat(f.summary()).contains("1 PCI function (no PCIe check reads its registers on this host)");
            assertThat(Plain.evidence(f).get("blind_checks")).isEqualTo(Map.of());
        });
    }

    /** A function that reads all ones no longer answers (hardware_missing's): not blind, and no finding for it alone. */
    @Test
    void readsAllOnesIsNotBlind(@TempDir Path tmp) {
        PcieHosts h = PcieHosts.topology(tmp.resolve("h"));
        byte[] ones = new byte[64];
        Arrays.fill(ones, (byte) 0xff);
        h.config(PcieHosts.NIC, ones);
        assertThat(blind(h.root())).isEmpty();
        assertThat(Hosts.of(Hosts.model(h.root()), "pcie_max_read_request")).singleElement()
                .satisfies(f -> assertThat(f.summary()).contains("reads all ones"));

        // its link status reading all ones (width 63) while its kept config was cut: gone too
        h.config(PcieHosts.NIC, cut("pciutils-cap-pcie-2.lspci-xxxx.txt")).config(PcieHosts.GPU, cut("pciutils-cap-pcie-2.lspci-xxxx.txt"));
        Hosts.write(h.root(), "sys/bus/pci/devices/" + PcieHosts.NIC + "/current_link_width", "63\n");
        assertThat(blind(h.root())).singleElement().satisfies(f -> {
            assertThat(Plain.evidence(f).get("functions")).isEqualTo(List.of(Map.of("pci", PcieHosts.GPU, "kind", "gpu", "config_bytes_read", 64)));
            assertThat(Plain.evidence(f).get("blind_checks")).isEqualTo(Map.of());
        });
    }

    /** A whole 256-byte read without the extended space is not for CAP_SYS_ADMIN to fix: pcie_acs_redirect's own info. */
    @Test
    void aWholeReadWithoutExtendedSpaceIsNotBlind(@TempDir Path tmp) {
        PcieHosts h = PcieHosts.topology(tmp.resolve("h"));
        h.config(PcieHosts.NIC_PORT, Arrays.copyOf(Fixtures.lspciDump("pciutils-cap-pcie-1.lspci-xxxx.txt"), 256));
        assertThat(blind(h.root())).isEmpty();
        assertThat(Hosts.of(Hosts.model(h.root()), "pcie_acs_redirect")).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.INFO);
            assertThat(Plain.evidence(f)).containsEntry("bridges", List.of(PcieHosts.NIC_PORT)).containsEntry("config_bytes_read", List.of(256));
            assertThat(f.remediation()).contains("extended config access");
        });
    }
}
