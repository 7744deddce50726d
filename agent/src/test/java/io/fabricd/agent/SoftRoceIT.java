package io.fabricd.agent;

import static io.fabricd.testing.PromText.s;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.collectors.verbs.PortAttrsCollector;
import io.fabricd.testing.PromText;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The real kernel RDMA stack: boots Debian's kernel under qemu with two Soft-RoCE devices
 * (testbed/softroce-vm.sh), runs {@code fabricd metrics} live (root /) before and after
 * ib_send_lat, and checks what a real rxe port looks like to fabricd.
 */
class SoftRoceIT {

    @Test
    void liveMetricsOnSoftRoce() throws Exception {
        Requirements.program("qemu-system-x86_64", "bash testbed/softroce-vm.sh --setup installs the test bed");
        Requirements.program("ib_send_lat", "apt-get install perftest");
        Path repo = Requirements.repoRoot();
        String guest = String.join("\n",
                "cd " + repo,
                "echo '=====M1====='",
                "bin/fabricd metrics",
                "echo '=====LAT====='",
                "timeout 120 ib_send_lat -d rxe0 -x 1 -n 2000 -F > /tmp/srv.log 2>&1 &",
                "sleep 2",
                "timeout 120 ib_send_lat -d rxe1 -x 1 -n 2000 -F 127.0.0.1 2>&1 | grep -A1 '#bytes'",
                "wait",
                "printf 'netdev:\\n  all_stats: true\\n' > /tmp/all.yaml",
                "echo '=====M2====='",
                "bin/fabricd metrics --config /tmp/all.yaml",
                "echo '=====SNAP====='",
                // written where only root can change a folder (the share is the host user's, whom root's
                // snapshot --out refuses when that is not root) and copied, links as links, to the host
                "bin/fabricd snapshot --out /root/snap 2>&1 && cp -RP /root/snap /mnt/out/snap",
                "bin/fabricd metrics",
                "echo '=====DIAG2====='",
                "bin/fabricd diagnose --previous /mnt/out/snap --format json; echo \"diagnose-exit=$?\"",
                // a shell capture (no Java on the host) and a one-shot diagnose of the live host right after it
                "bash tools/capture-host.sh /mnt/out/cap 2>&1 | tail -1",
                "bin/fabricd diagnose --format json > /mnt/out/live-diagnose.json; echo \"live-diagnose-exit=$?\"",
                "echo '=====END====='");
        // TCG on 2 cores: every fabricd start in the guest costs ~20 s; ~7 minutes when the machine is idle, far more when busy
        String out = SoftRoceVm.run(repo, guest, 1500);
        Map<String, Double> m1 = PromText.parse(section(out, "=====M1=====", "=====LAT====="));
        Map<String, Double> m2 = PromText.parse(section(out, "=====M2=====", "=====SNAP=====")); // with all_stats
        // diagnose on the live rxe host, with the snapshot taken a moment before as --previous so the rate
        // checks run too: no read errors, and only what is true of rxe on veth: the veths' MTU 1500 limits
        // active MTU to 1024 (warning), veth has no DCB to judge PFC by (info)
        String diag2 = section(out, "=====DIAG2=====", "=====END=====");
        assertThat(diag2).as(diag2).contains("diagnose-exit=0", "\"checks_without_history\" : [ ]").doesNotContain("\"path\" :");
        assertOnlyTruthsOfRxeOnVeth(diag2);
        Map<String, Double> all = m2;

        for (String dev : new String[] {"rxe0", "rxe1"}) {
            assertThat(m1).as(out).containsEntry(s("fabric_port_up", "device", dev, "port", "1"), 1.0);
            assertThat(m1.keySet()).anyMatch(k -> k.startsWith("fabric_port_info{") && k.contains("device=\"" + dev + "\"")
                    && k.contains("link_layer=\"Ethernet\""));
            assertThat(m1.keySet()).filteredOn(k -> k.startsWith("fabric_port_hw_stat_total{") && k.contains("device=\"" + dev + "\""))
                    .hasSizeGreaterThanOrEqualTo(10);
            assertThat(m1.keySet()).noneMatch(k -> k.contains("counter=\"lifespan\""));
            assertThat(m1.keySet()).noneMatch(k -> k.startsWith("fabric_port_pma_total{")); // rxe has no counters/
        }
        assertThat(m1).containsEntry(s("fabric_collector_success", "collector", "rdma"), 1.0);
        String sent0 = s("fabric_port_hw_stat_total", "device", "rxe0", "port", "1", "counter", "sent_pkts");
        String sent1 = s("fabric_port_hw_stat_total", "device", "rxe1", "port", "1", "counter", "sent_pkts");
        assertThat(m2.get(sent0) - m1.get(sent0)).as("rxe0 sent_pkts growth").isGreaterThanOrEqualTo(2000);
        assertThat(m2.get(sent1) - m1.get(sent1)).as("rxe1 sent_pkts growth").isGreaterThanOrEqualTo(2000);

        // host configuration on the real kernel: every collector ran without read errors
        for (String c : new String[] {"netdev", "ethtool", "dcb", "verbs", "qp", "topology", "gpudirect"}) {
            assertThat(m1).as(c).containsEntry(s("fabric_collector_success", "collector", c), 1.0);
            assertThat(m1).as(c).containsEntry(s("fabric_collector_read_errors", "collector", c), 0.0);
        }
        for (String[] pair : new String[][] {{"rxe0", "veth0"}, {"rxe1", "veth1"}}) {
            assertThat(m1).containsEntry(s("fabric_netdev_mtu_bytes", "netdev", pair[1]), 1500.0);
            // veth has no DCB ops: netlink answers "not supported", a state
            assertThat(m1).containsEntry(s("fabric_dcb_supported", "netdev", pair[1]), 0.0);
            // verbs (the native shim's ibv_query_port) answers, and agrees with the value fabricd
            // derives from the netdev MTU when verbs cannot answer (1500 - rxe's 80 bytes -> 1024)
            assertThat(m1).containsEntry(s("fabric_port_active_mtu_bytes", "device", pair[0], "port", "1"),
                    (double) PortAttrsCollector.derivedActiveMtu(1500, 80));
            assertThat(m1).containsEntry(s("fabric_port_mtu_derived", "device", pair[0], "port", "1"), 0.0);
            assertThat(m1).containsEntry(s("fabric_port_max_mtu_bytes", "device", pair[0], "port", "1"), 4096.0);
            assertThat(m1.get(s("fabric_device_max_qp", "device", pair[0]))).isGreaterThan(0.0);
            // RDMA netlink QP dump: at least the kernel's GSI QP1 per port
            assertThat(m1.get(s("fabric_queue_pairs", "device", pair[0], "state", "RTS"))).isGreaterThanOrEqualTo(1.0);
            // the SIOCETHTOOL ioctl on veth: the driver's statistics (opt-in family)
            assertThat(all.keySet()).anyMatch(k -> k.startsWith("fabric_netdev_stat_total{") && k.contains("netdev=\"" + pair[1] + "\""));
        }

        // a snapshot of the VM, replayed here, gives the VM's metrics
        Matcher run = Pattern.compile("\\[host\\] run dir (\\S+),").matcher(out);
        assertThat(run.find()).as(out).isTrue();
        Path snap = Path.of(run.group(1), "out", "snap");
        assertThat(out).contains("live-diagnose-exit=0");
        assertTheShellCaptureDiagnosesLikeTheLiveHost(Path.of(run.group(1), "out"));
        Map<String, Double> inVm = new TreeMap<>(PromText.parse(section(out, "=====SNAP=====", "=====DIAG2=====")
                .lines().filter(l -> !l.startsWith("fabricd:")).collect(Collectors.joining("\n"))));
        Map<String, Double> replay = new TreeMap<>(PromText.parse(CliTest.run("metrics", "--root", snap.toString()).out()));
        inVm.keySet().removeIf(k -> k.startsWith("fabric_collector_duration_seconds"));
        replay.keySet().removeIf(k -> k.startsWith("fabric_collector_duration_seconds"));
        // same series; gauges equal; counters at most what the later in-VM collection saw (the
        // snapshot's collection ran a few seconds before it, and rxe keeps counting)
        assertThat(replay.keySet()).isEqualTo(inVm.keySet());
        for (Map.Entry<String, Double> e : replay.entrySet()) {
            if (e.getKey().contains("_total{")) {
                assertThat(e.getValue()).as(e.getKey()).isLessThanOrEqualTo(inVm.get(e.getKey()));
            } else {
                assertThat(e.getValue()).as(e.getKey()).isEqualTo(inVm.get(e.getKey()));
            }
        }
    }

    /** What a one-shot diagnose finds, as check, severity and subject. */
    private static Set<String> findings(String json) throws Exception {
        JsonNode j = new ObjectMapper().readTree(json);
        Set<String> out = new TreeSet<>();
        for (JsonNode f : j.get("findings")) {
            out.add(f.get("check").asText() + " " + f.get("severity").asText() + " " + f.get("subject"));
        }
        return out;
    }

    /**
     * tools/capture-host.sh in the VM captured what the live collectors ask the kernel (DCB, pause,
     * verbs, QPs) as the tools print it, and fabricd diagnoses the capture as it diagnosed the live
     * host: the same findings.
     */
    private static void assertTheShellCaptureDiagnosesLikeTheLiveHost(Path out) throws Exception {
        Path cap = out.resolve("cap");
        assertThat(cap.resolve("fabricd/dcb/veth0.json")).content().contains("\"supported\": false");
        assertThat(cap.resolve("fabricd/verbs/rxe0.ibv_devinfo.txt")).content().contains("active_mtu");
        assertThat(cap.resolve("fabricd/rdma/qp.json")).exists();
        assertThat(cap.resolve("fabricd/ethtool/veth0.txt")).exists();
        CliTest.Result replay = CliTest.run("diagnose", "--root", cap.toString(), "--format", "json");
        assertThat(replay.code()).as(replay.err()).isZero();
        assertThat(findings(replay.out())).as(replay.out()).isNotEmpty()
                .isEqualTo(findings(Files.readString(out.resolve("live-diagnose.json"))));
    }

    private static String section(String out, String start, String end) {
        return SoftRoceVm.section(out, start, end);
    }

    private static void assertOnlyTruthsOfRxeOnVeth(String section) throws Exception {
        JsonNode j = new ObjectMapper()
                .readTree(section.substring(section.indexOf('{'), section.lastIndexOf('}') + 1));
        List<String> seen = new ArrayList<>();
        for (JsonNode f : j.get("findings")) {
            seen.add(f.get("check").asText() + " " + f.get("severity").asText() + " " + f.at("/subject/device").asText());
        }
        assertThat(seen).as(section).containsExactlyInAnyOrder("mtu_mismatch warning rxe0", "mtu_mismatch warning rxe1",
                "pfc_missing info rxe0", "pfc_missing info rxe1");
    }
}
