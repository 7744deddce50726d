package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.collectors.Fixtures;
import io.fabricd.testing.PromText;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs Debian's node_exporter (infiniband collector, --path.sysfs) and fabricd on the same input and
 * requires every node_infiniband_* series to have a fabricd value: the same number (raw PMA counters
 * times the factor node_exporter applies), and node_infiniband_info's labels on fabric_device_info.
 */
class NodeExporterParityIT {

    /** A fabricd series for a node_infiniband family: the PMA file in fabric_port_pma_total, and node_exporter's factor. */
    record Pma(String file, double factor) {
    }

    /** node_infiniband_X -> the raw PMA file fabricd exports under fabric_port_pma_total{counter=...}. */
    static final Map<String, Pma> COUNTER_FILE = Map.ofEntries(
            Map.entry("excessive_buffer_overrun_errors_total", new Pma("excessive_buffer_overrun_errors", 1)),
            Map.entry("link_downed_total", new Pma("link_downed", 1)),
            Map.entry("link_error_recovery_total", new Pma("link_error_recovery", 1)),
            Map.entry("local_link_integrity_errors_total", new Pma("local_link_integrity_errors", 1)),
            Map.entry("multicast_packets_received_total", new Pma("multicast_rcv_packets", 1)),
            Map.entry("multicast_packets_transmitted_total", new Pma("multicast_xmit_packets", 1)),
            Map.entry("port_constraint_errors_received_total", new Pma("port_rcv_constraint_errors", 1)),
            Map.entry("port_constraint_errors_transmitted_total", new Pma("port_xmit_constraint_errors", 1)),
            Map.entry("port_discards_received_total", new Pma("port_rcv_discards", 1)),
            Map.entry("port_discards_transmitted_total", new Pma("port_xmit_discards", 1)),
            Map.entry("port_errors_received_total", new Pma("port_rcv_errors", 1)),
            Map.entry("port_receive_remote_physical_errors_total", new Pma("port_rcv_remote_physical_errors", 1)),
            Map.entry("port_receive_switch_relay_errors_total", new Pma("port_rcv_switch_relay_errors", 1)),
            Map.entry("port_transmit_wait_total", new Pma("port_xmit_wait", 1)),
            Map.entry("symbol_error_total", new Pma("symbol_error", 1)),
            Map.entry("unicast_packets_received_total", new Pma("unicast_rcv_packets", 1)),
            Map.entry("unicast_packets_transmitted_total", new Pma("unicast_xmit_packets", 1)),
            Map.entry("vl15_dropped_total", new Pma("VL15_dropped", 1)),
            Map.entry("port_data_received_bytes_total", new Pma("port_rcv_data", 4)),
            Map.entry("port_data_transmitted_bytes_total", new Pma("port_xmit_data", 4)),
            Map.entry("port_packets_received_total", new Pma("port_rcv_packets", 1)),
            Map.entry("port_packets_transmitted_total", new Pma("port_xmit_packets", 1)),
            // counters_ext/ (kernels before 4.5)
            Map.entry("legacy_data_received_bytes_total", new Pma("port_rcv_data_64", 4)),
            Map.entry("legacy_data_transmitted_bytes_total", new Pma("port_xmit_data_64", 4)),
            Map.entry("legacy_packets_received_total", new Pma("port_rcv_packets_64", 1)),
            Map.entry("legacy_packets_transmitted_total", new Pma("port_xmit_packets_64", 1)),
            Map.entry("legacy_multicast_packets_received_total", new Pma("port_multicast_rcv_packets", 1)),
            Map.entry("legacy_multicast_packets_transmitted_total", new Pma("port_multicast_xmit_packets", 1)),
            Map.entry("legacy_unicast_packets_received_total", new Pma("port_unicast_rcv_packets", 1)),
            Map.entry("legacy_unicast_packets_transmitted_total", new Pma("port_unicast_xmit_packets", 1)));
    static final Map<String, String> FAMILY = Map.of(
            "rate_bytes_per_second", "fabric_port_rate_bytes_per_second",
            "state_id", "fabric_port_state_id",
            "physical_state_id", "fabric_port_physical_state_id");

    @Test
    void procfsFixtures(@TempDir Path tmp) throws Exception {
        assertParity(Fixtures.procfs(tmp), 80);
    }

    /** node_exporter's own fixture: an mlx4 with counters_ext/ (its legacy_* series) and an i40iw without PMA. */
    @Test
    void nodeExportersFixtureWithCountersExt(@TempDir Path tmp) throws Exception {
        Path root = Fixtures.nodeExporter(tmp);
        assertParity(root, 40);
        Map<String, Double> ours = PromText.parse(CliTest.run("metrics", "--root", root.toString()).out());
        // the curated byte and packet families take the 64-bit counters_ext/ values where they exist
        assertThat(ours).containsEntry("fabric_port_receive_bytes_total{device=\"mlx4_0\",port=\"1\"}", 4631917.0 * 4);
        assertThat(ours).containsEntry("fabric_port_receive_packets_total{device=\"mlx4_0\",port=\"1\"}", 0.0);
        assertThat(ours).containsEntry("fabric_collector_read_errors{collector=\"rdma\"}", 0.0);
    }

    @Test
    void infinibandHost() throws Exception {
        assertParity(Fixtures.host("host-a-ib"), 24);
    }

    @Test
    void roceHost() throws Exception {
        assertParity(Fixtures.host("host-b-roce"), 24);
    }

    private void assertParity(Path root, int atLeast) throws Exception {
        Path ne = Requirements.program("prometheus-node-exporter", "apt-get install prometheus-node-exporter");
        Map<String, Double> theirs = nodeExporter(ne, root);
        Map<String, Double> ours = PromText.parse(CliTest.run("metrics", "--root", root.toString()).out());
        int compared = 0;
        for (Map.Entry<String, Double> e : theirs.entrySet()) {
            String key = e.getKey();
            if (!key.startsWith("node_infiniband_")) {
                continue;
            }
            String name = key.substring("node_infiniband_".length(), key.indexOf('{'));
            Map<String, String> labels = labels(key);
            if (name.equals("info")) {
                assertInfo(ours, labels);
                compared++;
                continue;
            }
            String ourKey;
            double expected = e.getValue();
            if (COUNTER_FILE.containsKey(name)) {
                Pma pma = COUNTER_FILE.get(name);
                Map<String, String> l = new TreeMap<>(labels);
                l.put("counter", pma.file());
                ourKey = PromText.series("fabric_port_pma_total", l);
                expected = e.getValue() / pma.factor();
            } else if (FAMILY.containsKey(name)) {
                ourKey = PromText.series(FAMILY.get(name), labels);
            } else {
                throw new AssertionError("node_exporter family without a fabricd mapping: " + key);
            }
            assertThat(ours).as(key).containsEntry(ourKey, expected);
            compared++;
        }
        assertThat(compared).isGreaterThanOrEqualTo(atLeast);
    }

    /** node_infiniband_info{board_id, device, firmware_version, hca_type} is one fabric_device_info series with those values. */
    private static void assertInfo(Map<String, Double> ours, Map<String, String> info) {
        assertThat(ours.keySet()).as("fabric_device_info for " + info).anySatisfy(k -> {
            assertThat(k).startsWith("fabric_device_info{");
            Map<String, String> l = labels(k);
            assertThat(l).containsEntry("device", info.get("device")).containsEntry("board_id", info.get("board_id"))
                    .containsEntry("fw_ver", info.get("firmware_version")).containsEntry("hca_type", info.get("hca_type"));
        });
    }

    private static Map<String, String> labels(String key) {
        Map<String, String> m = new HashMap<>();
        String inner = key.substring(key.indexOf('{') + 1, key.length() - 1);
        for (String kv : inner.split("\",")) {
            int eq = kv.indexOf('=');
            m.put(kv.substring(0, eq), kv.substring(eq + 2).replace("\"", ""));
        }
        return m;
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    static Map<String, Double> nodeExporter(Path binary, Path root) throws Exception {
        int port = freePort();
        Process p = new ProcessBuilder(binary.toString(), "--path.sysfs=" + root.resolve("sys"),
                "--collector.disable-defaults", "--collector.infiniband",
                "--web.listen-address=127.0.0.1:" + port)
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (true) {
                try {
                    var r = Http.get(port, "/metrics");
                    if (r.statusCode() == 200) {
                        Map<String, Double> v = PromText.parse(r.body());
                        assertThat(v).containsEntry("node_scrape_collector_success{collector=\"infiniband\"}", 1.0);
                        return v;
                    }
                } catch (IOException e) {
                    if (System.nanoTime() > deadline) {
                        throw e;
                    }
                }
                Thread.sleep(50);
            }
        } finally {
            p.destroy();
            p.waitFor();
        }
    }
}
