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
 * requires every node_infiniband_* value to appear in fabricd with the same value.
 */
class NodeExporterParityIT {

    /** node_infiniband_X_total -> the fabricd series holding the same number. */
    static final Map<String, String> COUNTER_FILE = Map.ofEntries(
            Map.entry("excessive_buffer_overrun_errors_total", "excessive_buffer_overrun_errors"),
            Map.entry("link_downed_total", "link_downed"),
            Map.entry("link_error_recovery_total", "link_error_recovery"),
            Map.entry("local_link_integrity_errors_total", "local_link_integrity_errors"),
            Map.entry("multicast_packets_received_total", "multicast_rcv_packets"),
            Map.entry("multicast_packets_transmitted_total", "multicast_xmit_packets"),
            Map.entry("port_constraint_errors_received_total", "port_rcv_constraint_errors"),
            Map.entry("port_constraint_errors_transmitted_total", "port_xmit_constraint_errors"),
            Map.entry("port_discards_received_total", "port_rcv_discards"),
            Map.entry("port_discards_transmitted_total", "port_xmit_discards"),
            Map.entry("port_errors_received_total", "port_rcv_errors"),
            Map.entry("port_receive_remote_physical_errors_total", "port_rcv_remote_physical_errors"),
            Map.entry("port_receive_switch_relay_errors_total", "port_rcv_switch_relay_errors"),
            Map.entry("port_transmit_wait_total", "port_xmit_wait"),
            Map.entry("symbol_error_total", "symbol_error"),
            Map.entry("unicast_packets_received_total", "unicast_rcv_packets"),
            Map.entry("unicast_packets_transmitted_total", "unicast_xmit_packets"),
            Map.entry("vl15_dropped_total", "VL15_dropped"));
    static final Map<String, String> FAMILY = Map.of(
            "port_data_received_bytes_total", "fabric_port_receive_bytes_total",
            "port_data_transmitted_bytes_total", "fabric_port_transmit_bytes_total",
            "port_packets_received_total", "fabric_port_receive_packets_total",
            "port_packets_transmitted_total", "fabric_port_transmit_packets_total",
            "rate_bytes_per_second", "fabric_port_rate_bytes_per_second",
            "state_id", "fabric_port_state_id",
            "physical_state_id", "fabric_port_physical_state_id");

    @Test
    void procfsFixtures(@TempDir Path tmp) throws Exception {
        assertParity(Fixtures.procfs(tmp), 80);
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
            if (!key.startsWith("node_infiniband_") || key.startsWith("node_infiniband_info")) {
                continue;
            }
            String name = key.substring("node_infiniband_".length(), key.indexOf('{'));
            Map<String, String> labels = labels(key);
            String ourKey;
            if (COUNTER_FILE.containsKey(name)) {
                Map<String, String> l = new TreeMap<>(labels);
                l.put("counter", COUNTER_FILE.get(name));
                ourKey = PromText.series("fabric_port_pma_total", l);
            } else if (FAMILY.containsKey(name)) {
                ourKey = PromText.series(FAMILY.get(name), labels);
            } else {
                throw new AssertionError("node_exporter family without a fabricd mapping: " + key);
            }
            assertThat(ours).as(key).containsEntry(ourKey, e.getValue());
            compared++;
        }
        assertThat(compared).isGreaterThanOrEqualTo(atLeast);
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
