package io.fabricd.diagnosis.run;

import io.fabricd.diagnosis.Hosts;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.collectors.Fixtures;
import io.fabricd.model.finding.Evidence;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Severity;
import io.fabricd.model.finding.Subject;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which findings the text report takes for alike, what it says once for them, and what it folds unless verbose. */
class ReportTextTest {

    @Test
    void findingsAreAlikeWhenTheirFixesDifferOnlyByTheirOwnNames() {
        Finding a = port("mlx5_1", "`rdma statistic show link mlx5_1/1` and `mlxlink -d mlx5_1` on mlx5_1.");
        Finding b = port("mlx5_10", "`rdma statistic show link mlx5_10/1` and `mlxlink -d mlx5_10` on mlx5_10.");
        // mlx5_1 is a prefix of mlx5_10: only whole names are placeholders
        assertThat(ReportText.placeholders(a)).isEqualTo(ReportText.placeholders(b))
                .isEqualTo("`rdma statistic show link <device>/1` and `mlxlink -d <device>` on <device>.");
        // a port number is not a name: port 2's fix is another
        Finding c = new Finding("transport_errors", Severity.WARNING, Subject.port("mlx5_2", 2), "s",
                Evidence.builder().put("counts", "totals").build(), "`rdma statistic show link mlx5_2/2`");
        assertThat(ReportText.placeholders(c)).isEqualTo("`rdma statistic show link <device>/2`");

        String text = new Report(Hosts.model("host-a-ib"), List.of(a, b, c), List.of(), List.of()).toText(false, false);
        assertThat(text).contains("WARNING (3)\n  [transport_errors] 2 findings\n      counts: totals\n"
                + "    device=mlx5_1 port=1: errors on mlx5_1\n        total: 1\n"
                + "    device=mlx5_10 port=1: errors on mlx5_10\n        total: 10\n"
                + "    fix: `rdma statistic show link <device>/1` and `mlxlink -d <device>` on <device>.\n"
                // alone in its group: its own words, as before
                + "  [transport_errors] device=mlx5_2 port=2: s\n      counts: totals\n    fix: `rdma statistic show link mlx5_2/2`\n");
    }

    @Test
    void infoIsOneLineUnlessVerbose() {
        Finding warn = new Finding("mtu_mismatch", Severity.WARNING, Subject.port("mlx5_0", 1), "MTU 1500", Evidence.NONE, "Raise it.");
        Finding i1 = new Finding("port_errors_rising", Severity.INFO, Subject.port("mlx5_0", 1), "totals", Evidence.NONE, "Watch.");
        Finding i2 = new Finding("port_errors_rising", Severity.INFO, Subject.port("mlx5_1", 1), "totals", Evidence.NONE, "Watch.");
        Finding i3 = new Finding("link_down", Severity.INFO, Subject.port("mlx5_2", 1), "uncabled", Evidence.NONE, "Cable it.");
        Report r = new Report(Hosts.model("host-a-ib"), List.of(warn, i1, i2, i3), List.of(), List.of());

        assertThat(r.toText(false, false)).contains("WARNING (1)\n  [mtu_mismatch] device=mlx5_0 port=1: MTU 1500\n    fix: Raise it.\n",
                "\nINFO (3): 2 port_errors_rising, 1 link_down; `fabricd diagnose --verbose` shows them\n").doesNotContain("uncabled");
        assertThat(r.toText(false, true)).contains("\nINFO (3)\n  [port_errors_rising] 2 findings\n    device=mlx5_0 port=1: totals\n"
                + "    device=mlx5_1 port=1: totals\n    fix: Watch.\n  [link_down] device=mlx5_2 port=1: uncabled\n    fix: Cable it.\n");
        assertThat(r.toText(true, false)).contains("\u001b[1;36mINFO (3)\u001b[0m: 2 port_errors_rising");
    }

    /**
     * The demo as every reader without CAP_SYS_ADMIN reads it (the package's unit, the chart's
     * default, diagnose as a user): each config space's first 64 bytes. 38 subjects four checks
     * could not judge are one line, and the one thing to do about them, pcie_config_blind's cause
     * and fix, is shown beside it; verbose lists them, a NIC's three register checks in one line.
     */
    @Test
    void aBlindHostSaysWhyNotJudgedInAFewLinesUnlessVerbose(@TempDir Path tmp) throws Exception {
        Path demo = Fixtures.demo(tmp.resolve("demo"));
        Fixtures.truncateConfigSpaces(demo, 64);
        Report r = Diagnosis.run(Hosts.model(demo), null);
        assertThat(r.notJudged()).hasSize(38);

        String text = r.toText(false, false);
        assertThat(text).contains("\nNot judged (38): blind: 14 pcie_acs_redirect, 8 pcie_max_payload, 8 pcie_max_read_request, "
                + "8 pcie_relaxed_ordering; no finding is built on them, `fabricd diagnose --verbose` lists them and why\n"
                + "  [pcie_config_blind] host: PCIe checks blind: fabricd read only 64 bytes of the config space of 48 PCI functions, "
                + "so pcie_acs_redirect, pcie_max_read_request, pcie_max_payload, pcie_relaxed_ordering cannot judge them; reading the "
                + "capabilities past byte 64 takes CAP_SYS_ADMIN\n    fix: Give fabricd CAP_SYS_ADMIN to read whole config spaces");
        assertThat(text).containsPattern("\nINFO \\(\\d+\\): [^\\n]*; `fabricd diagnose --verbose` shows them; pcie_config_blind under "
                + "\"Not judged\"\n").doesNotContain("lies past the 64 bytes read", "functions: [");
        assertThat(text.split("\\[pcie_config_blind\\]", -1)).hasSize(2);

        String verbose = r.toText(false, true);
        assertThat(verbose).contains("\nNot judged (38): no finding is built on what could not be read\n"
                + "  [pcie_acs_redirect] pci=0000:17:00.0: blind: bridge 0000:17:00.0: the extended space (from 0x100) lies past the 64 "
                + "bytes read. Reading the capabilities past byte 64 takes CAP_SYS_ADMIN (pcie_config_blind).\n",
                "\n  [pcie_max_payload, pcie_max_read_request, pcie_relaxed_ordering] pci=0000:19:00.0: blind: nic 0000:19:00.0: the "
                        + "capability at 0x40 lies past the 64 bytes read. Reading the capabilities past byte 64 takes CAP_SYS_ADMIN "
                        + "(pcie_config_blind).\n");
        // 14 bridges and 8 NICs: a line each; the cause is in the info findings, with its evidence
        assertThat(verbose.substring(verbose.indexOf("\nNot judged")).lines().filter(l -> l.startsWith("  ["))).hasSize(22);
        assertThat(verbose).contains("\n  [pcie_config_blind] host: PCIe checks blind: ", "      functions: [");
        // the JSON is the whole list
        assertThat(new ObjectMapper().readTree(r.toJson()).get("not_judged")).hasSize(38);
    }

    private static Finding port(String device, String fix) {
        return new Finding("transport_errors", Severity.WARNING, Subject.port(device, 1), "errors on " + device,
                Evidence.builder().put("counts", "totals").put("total", device.equals("mlx5_1") ? 1 : 10).build(), fix);
    }
}
