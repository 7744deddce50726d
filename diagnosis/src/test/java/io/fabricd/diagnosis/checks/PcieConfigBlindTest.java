package io.fabricd.diagnosis.checks;

import io.fabricd.diagnosis.Plain;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.collectors.Fixtures;
import io.fabricd.collectors.pcie.PcieHosts;
import io.fabricd.diagnosis.Hosts;
import io.fabricd.diagnosis.run.Diagnosis;
import io.fabricd.diagnosis.run.Report;
import io.fabricd.model.HostModel;
import io.fabricd.model.PcieConfig;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.NotJudged;
import io.fabricd.model.finding.Severity;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * pcie_config_blind: fabricd without CAP_SYS_ADMIN reads 64 bytes of each config space (a snapshot
 * taken so holds 64-byte files), and says once per host which PCIe checks that leaves blind, while
 * the report's not-judged list names each subject they could not judge; a whole read says nothing,
 * a function that reads all ones is gone, not blind.
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

    /** "check pci" of every subject the report could not judge for {@code reason}. */
    static List<String> notJudged(Report r, NotJudged.Reason reason) {
        return r.notJudged().stream().filter(n -> n.reason() == reason).map(n -> n.check() + " " + n.subject().pci()).toList();
    }

    static Report diagnose(Path root) {
        return Diagnosis.run(Hosts.model(root), null);
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
            assertThat(Plain.evidence(f)).doesNotContainKey("blind_checks"); // which check could not judge what: the not-judged list
            assertThat(f.remediation()).contains("`pcie.fullConfigSpace: true`").contains("AmbientCapabilities=CAP_SYS_ADMIN")
                    .contains("`fabricd diagnose` as root");
        });
        // the blind checks claim nothing; the not-judged list names each subject, among them the demo's planted problems
        assertThat(all).filteredOn(f -> PCIE_CHECKS.contains(f.check())).isEmpty();
        Report r = Diagnosis.run(m, null);
        assertThat(notJudged(r, NotJudged.Reason.BLIND)).contains("pcie_acs_redirect 0000:4a:01.0", "pcie_max_read_request 0000:af:00.0",
                "pcie_max_payload 0000:af:00.0", "pcie_relaxed_ordering 0000:af:00.0");
        assertThat(r.notJudged()).extracting(NotJudged::reason).containsOnly(NotJudged.Reason.BLIND);
        assertThat(r.notJudged()).allSatisfy(n -> assertThat(n.detail()).contains("lies past the 64 bytes read")
                .contains("CAP_SYS_ADMIN (pcie_config_blind)"));
        // the demo's planted PCIe problems come back once the whole config space is read
        assertThat(Diagnosis.run(Hosts.model(Fixtures.demo(tmp.resolve("whole"))), null).findings())
                .extracting(Finding::check).contains("pcie_acs_redirect", "pcie_max_read_request").doesNotContain("pcie_config_blind");
    }

    /** Each function cut blinds the checks that judge a register of it, and only those; the not-judged list names each subject. */
    @Test
    void whatEachCutFunctionBlinds(@TempDir Path tmp) {
        PcieHosts h = PcieHosts.topology(tmp.resolve("h"));
        assertThat(blind(h.root())).isEmpty();
        assertThat(diagnose(h.root()).notJudged()).isEmpty();

        // the NIC: its Device Control and Capabilities, the three NIC checks
        h.config(PcieHosts.NIC, cut("pciutils-cap-pcie-2.lspci-xxxx.txt"));
        assertThat(blind(h.root())).singleElement().satisfies(f -> {
            assertThat(f.summary()).contains("64 bytes of the config space of 1 PCI function,")
                    .contains("pcie_max_read_request, pcie_max_payload, pcie_relaxed_ordering cannot judge it").doesNotContain("pcie_acs_redirect");
            assertThat(Plain.evidence(f).get("functions")).isEqualTo(List.of(Map.of("pci", PcieHosts.NIC, "kind", "nic", "config_bytes_read", 64)));
        });
        assertThat(notJudged(diagnose(h.root()), NotJudged.Reason.BLIND)).containsExactly("pcie_max_payload " + PcieHosts.NIC,
                "pcie_max_read_request " + PcieHosts.NIC, "pcie_relaxed_ordering " + PcieHosts.NIC);

        // the NIC's switch port instead: what the NIC's path allows, and the ACS between it and the GPU
        h.config(PcieHosts.NIC, Fixtures.lspciDump("pciutils-cap-pcie-2.lspci-xxxx.txt")).config(PcieHosts.NIC_PORT,
                cut("pciutils-cap-pcie-1.lspci-xxxx.txt"));
        assertThat(blind(h.root())).singleElement().satisfies(f -> assertThat(f.summary())
                .contains("pcie_acs_redirect, pcie_max_payload cannot judge it"));
        Report r = diagnose(h.root());
        assertThat(notJudged(r, NotJudged.Reason.BLIND)).containsExactly("pcie_acs_redirect " + PcieHosts.NIC_PORT,
                "pcie_max_payload " + PcieHosts.NIC);
        assertThat(r.notJudged()).filteredOn(n -> n.check().equals("pcie_max_payload")).singleElement()
                .satisfies(n -> assertThat(n.detail()).startsWith("bridge " + PcieHosts.NIC_PORT + ": "));

        // a GPU alone: no check reads its registers, yet its read is said
        h.config(PcieHosts.NIC_PORT, Fixtures.lspciDump("pciutils-cap-pcie-1.lspci-xxxx.txt")).config(PcieHosts.GPU,
                cut("pciutils-cap-pcie-2.lspci-xxxx.txt"));
        assertThat(blind(h.root())).singleElement().satisfies(f ->
                assertThat(f.summary()).contains("1 PCI function (no PCIe check reads its registers on this host)"));
        assertThat(diagnose(h.root()).notJudged()).isEmpty();
    }

    /** A function that reads all ones no longer answers (hardware_missing's): not blind but gone, and no finding built on it. */
    @Test
    void readsAllOnesIsNotBlind(@TempDir Path tmp) {
        PcieHosts h = PcieHosts.topology(tmp.resolve("h"));
        byte[] ones = new byte[64];
        Arrays.fill(ones, (byte) 0xff);
        h.config(PcieHosts.NIC, ones);
        assertThat(blind(h.root())).isEmpty();
        Report r = diagnose(h.root());
        assertThat(r.findings()).noneMatch(f -> PCIE_CHECKS.contains(f.check()) && PcieHosts.NIC.equals(f.subject().pci()));
        assertThat(notJudged(r, NotJudged.Reason.GONE)).containsExactly("pcie_degraded " + PcieHosts.NIC,
                "pcie_max_payload " + PcieHosts.NIC, "pcie_max_read_request " + PcieHosts.NIC, "pcie_relaxed_ordering " + PcieHosts.NIC);
        assertThat(r.notJudged()).allSatisfy(n -> assertThat(n.detail()).contains("reads all ones (its config space)"));

        // its link status reading all ones (width 63) while its kept config was cut: gone too, not blind
        h.config(PcieHosts.NIC, cut("pciutils-cap-pcie-2.lspci-xxxx.txt")).config(PcieHosts.GPU, cut("pciutils-cap-pcie-2.lspci-xxxx.txt"));
        Hosts.write(h.root(), "sys/bus/pci/devices/" + PcieHosts.NIC + "/current_link_width", "63\n");
        assertThat(blind(h.root())).singleElement().satisfies(f -> {
            assertThat(Plain.evidence(f).get("functions")).isEqualTo(List.of(Map.of("pci", PcieHosts.GPU, "kind", "gpu", "config_bytes_read", 64)));
            assertThat(f.summary()).contains("no PCIe check reads its registers");
        });
        assertThat(diagnose(h.root()).notJudged()).extracting(NotJudged::reason).containsOnly(NotJudged.Reason.GONE);
    }

    /** A whole 256-byte read without the extended space is not for CAP_SYS_ADMIN to fix: ACS blind for want of extended config access. */
    @Test
    void aWholeReadWithoutExtendedSpaceIsNotBlind(@TempDir Path tmp) {
        PcieHosts h = PcieHosts.topology(tmp.resolve("h"));
        h.config(PcieHosts.NIC_PORT, Arrays.copyOf(Fixtures.lspciDump("pciutils-cap-pcie-1.lspci-xxxx.txt"), 256));
        assertThat(blind(h.root())).isEmpty();
        Report r = diagnose(h.root());
        assertThat(r.findings()).noneMatch(f -> f.check().equals("pcie_acs_redirect"));
        assertThat(r.notJudged()).singleElement().satisfies(n -> {
            assertThat(n.check()).isEqualTo("pcie_acs_redirect");
            assertThat(n.subject().pci()).isEqualTo(PcieHosts.NIC_PORT);
            assertThat(n.reason()).isEqualTo(NotJudged.Reason.BLIND);
            assertThat(n.detail()).contains("the extended space (from 0x100) lies past the 256 bytes read")
                    .contains("no extended config access").doesNotContain("CAP_SYS_ADMIN");
        });
    }
}
