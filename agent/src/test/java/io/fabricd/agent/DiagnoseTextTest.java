package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * {@code fabricd diagnose} in text on the demo host: what needs a person first and in full, like
 * findings as one group with one fix, info findings counted below it unless --verbose.
 */
class DiagnoseTextTest {

    @Test
    void infoIsCountedBelowTheFoldAndVerboseShowsItGrouped() {
        CliTest.Result r = CliTest.run("diagnose", "--demo");
        assertThat(r.code()).as(r.err()).isEqualTo(1);
        assertThat(r.out()).contains("CRITICAL (1)\n  [pfc_missing] device=mlx5_7 netdev=ens8f0np0 port=1 priority=3: ", "WARNING (5)\n",
                "\nINFO (11): 3 port_errors_rising, 8 transport_errors; `fabricd diagnose --verbose` shows them\n");
        assertThat(r.out()).doesNotContain("[transport_errors]", "[port_errors_rising]", "Retries exceeded");
        assertThat(count(r.out(), "    fix: ")).isEqualTo(6);

        CliTest.Result v = CliTest.run("diagnose", "--demo", "--verbose");
        assertThat(v.code()).isEqualTo(1);
        assertThat(v.out()).contains("\nINFO (11)\n",
                // the InfiniBand ports' transport errors: one group, one fix naming the device as a placeholder
                "  [transport_errors] 6 findings\n      counts: totals since the driver loaded (one collection: no rate)\n",
                "\n    device=mlx5_0 netdev=ibp25s0 port=1: RDMA transport errors on mlx5_0 port 1",
                "`rdma statistic show link <device>/1` shows the counters.\n",
                // the RoCE ports' fix says more (PFC, ECN): a group of its own
                "  [transport_errors] 2 findings\n",
                "  [port_errors_rising] 3 findings\n");
        assertThat(count(v.out(), "Retries exceeded")).isEqualTo(2);
        assertThat(count(v.out(), "counts: totals since the driver loaded (one collection: no rate)")).isEqualTo(2);
        assertThat(count(v.out(), "    fix: ")).isEqualTo(9);
        assertThat(v.out()).contains("[pfc_missing] device=mlx5_7 netdev=ens8f0np0 port=1 priority=3: ",
                "fix: Enable PFC on priority 3 on the host and on the switch port: `dcb pfc set dev ens8f0np0 prio-pfc 3:on`");
    }

    private static int count(String s, String part) {
        int n = 0;
        for (int i = s.indexOf(part); i >= 0; i = s.indexOf(part, i + part.length())) {
            n++;
        }
        return n;
    }
}
