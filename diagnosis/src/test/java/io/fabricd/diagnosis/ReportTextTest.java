package io.fabricd.diagnosis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.model.finding.Evidence;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Severity;
import io.fabricd.model.finding.Subject;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which findings the text report takes for alike, and what it says once for them. */
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

        String text = new Report(Hosts.model("host-a-ib"), List.of(a, b, c), List.of(), List.of()).toText(false);
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

        assertThat(r.toText(false)).contains("WARNING (1)\n  [mtu_mismatch] device=mlx5_0 port=1: MTU 1500\n    fix: Raise it.\n",
                "\nINFO (3): 2 port_errors_rising, 1 link_down; `fabricd diagnose --verbose` shows them\n").doesNotContain("uncabled");
        assertThat(r.toText(false, true)).contains("\nINFO (3)\n  [port_errors_rising] 2 findings\n    device=mlx5_0 port=1: totals\n"
                + "    device=mlx5_1 port=1: totals\n    fix: Watch.\n  [link_down] device=mlx5_2 port=1: uncabled\n    fix: Cable it.\n");
        assertThat(r.toText(true)).contains("\u001b[1;36mINFO (3)\u001b[0m: 2 port_errors_rising");
    }

    private static Finding port(String device, String fix) {
        return new Finding("transport_errors", Severity.WARNING, Subject.port(device, 1), "errors on " + device,
                Evidence.builder().put("counts", "totals").put("total", device.equals("mlx5_1") ? 1 : 10).build(), fix);
    }
}
