package io.fabricd.agent;

import static io.fabricd.testing.PromText.s;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.collectors.Fixtures;
import io.fabricd.collectors.pcie.PcieHosts;
import io.fabricd.testing.PromText;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the checks could not judge, from the command line: one host whose NIC's capability list
 * loops (a real config dump with one pointer changed), shown alike by {@code fabricd diagnose} (text,
 * counted unless --verbose, and JSON) and {@code fabricd metrics}.
 */
class NotJudgedCliTest {

    @Test
    void diagnoseAndMetricsShowTheSameList(@TempDir Path tmp) throws Exception {
        PcieHosts h = PcieHosts.topology(tmp.resolve("h"));
        byte[] loop = Fixtures.lspciDump("pciutils-cap-pcie-2.lspci-xxxx.txt");
        loop[0xa1] = 0x40;
        h.config(PcieHosts.NIC, loop);
        String root = h.root().toString();

        CliTest.Result text = CliTest.run("diagnose", "--root", root, "--fail-on", "never");
        assertThat(text.code()).isZero();
        assertThat(text.out()).contains("\nNot judged (3): malformed: 1 pcie_max_payload, 1 pcie_max_read_request, 1 pcie_relaxed_ordering; "
                + "no finding is built on them, `fabricd diagnose --verbose` lists them and why\n");
        CliTest.Result verbose = CliTest.run("diagnose", "--root", root, "--fail-on", "never", "--verbose");
        assertThat(verbose.out()).contains("\n  [pcie_max_payload, pcie_max_read_request, pcie_relaxed_ordering] pci=0000:19:00.0: malformed: "
                + "nic 0000:19:00.0: the list loops: the capability at 0xa0 points back to 0x40").doesNotContain("pci=0000:19:00.0: NIC");

        JsonNode json = new ObjectMapper().readTree(CliTest.run("diagnose", "--root", root, "--format", "json", "--fail-on", "never").out());
        assertThat(json.get("not_judged").size()).isEqualTo(3);
        assertThat(json.at("/not_judged/1/check").asText()).isEqualTo("pcie_max_read_request");
        assertThat(json.at("/not_judged/1/reason").asText()).isEqualTo("malformed");

        Map<String, Double> v = PromText.parse(CliTest.run("metrics", "--root", root).out());
        for (String check : new String[] {"pcie_max_payload", "pcie_max_read_request", "pcie_relaxed_ordering"}) {
            assertThat(v).containsEntry(s("fabric_check_not_judged", "check", check, "reason", "malformed", "device", "", "port", "",
                    "netdev", "", "priority", "", "gpu", "", "pci", PcieHosts.NIC, "peer", "", "direction", ""), 1.0);
        }
    }
}
