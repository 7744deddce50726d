package io.fabricd.exporters;

import static io.fabricd.testing.PromText.s;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.collectors.CollectorConfig;
import io.fabricd.collectors.Fixtures;
import io.fabricd.collectors.run.HostCollection;
import io.fabricd.collectors.source.SnapshotHostSource;
import io.fabricd.model.HostModel;
import io.fabricd.testing.PromText;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FabricMetricsTest {

    static HostModel model(SnapshotHostSource s) {
        return HostCollection.standard(CollectorConfig.DEFAULT).collect(s);
    }

    static String text(HostModel m) {
        return new String(Exposition.render(FabricMetrics.build(m), null).body(), StandardCharsets.UTF_8);
    }

    @Test
    void infinibandPortFamilies() {
        String t = text(model(Fixtures.open("host-a-ib")));
        Map<String, Double> v = PromText.parse(t);
        assertThat(t).contains("# TYPE fabric_port_transmit_bytes_total counter");
        assertThat(v).containsEntry(s("fabric_port_info", "device", "mlx5_0", "port", "1", "link_layer", "InfiniBand",
                "netdev", "ibp25s0", "node_guid", "a088:c203:00a1:b2c4", "pci", "0000:19:00.0", "numa_node", "0",
                "fw_ver", "28.39.1002", "hca_type", "MT4129"), 1.0);
        assertThat(v).containsEntry(s("fabric_port_up", "device", "mlx5_0", "port", "1"), 1.0);
        assertThat(v).containsEntry(s("fabric_port_rate_bytes_per_second", "device", "mlx5_0", "port", "1"), 5.0e10);
        assertThat(v).containsEntry(s("fabric_port_transmit_bytes_total", "device", "mlx5_0", "port", "1"), 24543663075294.0 * 4);
        assertThat(v).containsEntry(s("fabric_port_receive_bytes_total", "device", "mlx5_0", "port", "1"), 24543663075294.0 * 4 - 2444240827.0 * 4);
        assertThat(v).containsEntry(s("fabric_port_transmit_packets_total", "device", "mlx5_0", "port", "1"), (double) (24543663075294L / 1024));
        assertThat(v).containsEntry(s("fabric_port_pma_total", "device", "mlx5_0", "port", "1", "counter", "VL15_dropped"), 0.0);
        assertThat(v).containsEntry(s("fabric_port_pma_total", "device", "mlx5_0", "port", "1", "counter", "port_xmit_data"), 24543663075294.0);
        assertThat(v).containsEntry(s("fabric_port_pma_saturated", "device", "mlx5_0", "port", "1", "counter", "symbol_error"), 0.0);
        assertThat(v).doesNotContainKey(s("fabric_port_pma_saturated", "device", "mlx5_0", "port", "1", "counter", "port_xmit_data"));
        assertThat(v).containsEntry(s("fabric_port_hw_stat_total", "device", "mlx5_0", "port", "1", "counter", "duplicate_request"), 12.0);
        assertThat(v.keySet()).noneMatch(k -> k.contains("lifespan"));
        assertThat(v).containsEntry(s("fabric_collector_success", "collector", "rdma"), 1.0);
        assertThat(v).containsKey(s("fabric_collector_duration_seconds", "collector", "rdma"));
        // one series per counters/ file (21) and per hw counter (29)
        assertThat(v.keySet()).filteredOn(k -> k.startsWith("fabric_port_pma_total{")).hasSize(21);
        assertThat(v.keySet()).filteredOn(k -> k.startsWith("fabric_port_hw_stat_total{")).hasSize(29);
    }

    @Test
    void softRoceHasHwCountersOnly() {
        Map<String, Double> v = PromText.parse(text(model(Fixtures.open("host-c-rxe"))));
        assertThat(v).containsEntry(s("fabric_port_hw_stat_total", "device", "rxe0", "port", "1", "counter", "sent_pkts"), 1048576.0);
        assertThat(v.keySet()).noneMatch(k -> k.startsWith("fabric_port_pma_total") || k.startsWith("fabric_port_transmit_bytes"));
        assertThat(v).containsEntry(s("fabric_port_info", "device", "rxe0", "port", "1", "link_layer", "Ethernet",
                "netdev", "ens3", "node_guid", "5054:00ff:fe12:3456", "pci", "", "numa_node", "", "fw_ver", "",
                "hca_type", ""), 1.0);
    }

    @Test
    void brokenDeviceKeepsItsReadableFilesAndTheGoodOneIsComplete() {
        Map<String, Double> v = PromText.parse(text(model(Fixtures.open("host-broken"))));
        assertThat(v.keySet()).filteredOn(k -> k.startsWith("fabric_port_pma_total{") && k.contains("mlx5_0")).hasSize(21);
        assertThat(v).containsEntry(s("fabric_port_pma_total", "device", "mlx5_1", "port", "1", "counter", "link_downed"), 1.8446744073709552E19);
        // 2^64-1 is above link_downed's 8-bit maximum: proof of a wider counter, not saturation
        assertThat(v).containsEntry(s("fabric_port_pma_saturated", "device", "mlx5_1", "port", "1", "counter", "link_downed"), 0.0);
        assertThat(v).doesNotContainKey(s("fabric_port_pma_total", "device", "mlx5_1", "port", "1", "counter", "symbol_error"));
        assertThat(v).doesNotContainKey(s("fabric_port_rate_bytes_per_second", "device", "mlx5_1", "port", "1"));
        assertThat(v).containsEntry(s("fabric_port_up", "device", "mlx5_1", "port", "1"), 0.0);
        // only ports/1/state, ACTIVE: ACTIVE needs a trained link, and the missing phys_state is no evidence otherwise
        assertThat(v).containsEntry(s("fabric_port_up", "device", "mlx5_2", "port", "1"), 1.0);
        assertThat(v).containsEntry(s("fabric_collector_success", "collector", "rdma"), 1.0);
        assertThat(v.get(s("fabric_collector_read_errors", "collector", "rdma"))).isGreaterThan(10.0);
    }

    /**
     * The values node_exporter's infiniband collector reports for procfs's fixtures (its
     * node_infiniband_* families: data x 4, packets, every error counter, rate) are fabricd's too.
     */
    @Test
    void agreesWithNodeExporterOnProcfsFixtures(@TempDir Path tmp) {
        Map<String, Double> v = PromText.parse(text(model(SnapshotHostSource.open(Fixtures.procfs(tmp)))));
        assertThat(v).containsEntry(s("fabric_port_receive_bytes_total", "device", "hfi1_0", "port", "1"), 1.380366808104e12);
        assertThat(v).containsEntry(s("fabric_port_transmit_bytes_total", "device", "hfi1_0", "port", "1"), 1.094233306172e12);
        assertThat(v).containsEntry(s("fabric_port_receive_packets_total", "device", "hfi1_0", "port", "1"), 6.38036947e8);
        assertThat(v).containsEntry(s("fabric_port_transmit_packets_total", "device", "hfi1_0", "port", "1"), 5.68318856e8);
        assertThat(v).containsEntry(s("fabric_port_rate_bytes_per_second", "device", "hfi1_0", "port", "1"), 1.25e10);
        assertThat(v).containsEntry(s("fabric_port_receive_bytes_total", "device", "mlx4_0", "port", "1"), 8.884894436e9);
        assertThat(v).containsEntry(s("fabric_port_transmit_bytes_total", "device", "mlx4_0", "port", "2"), 1.0616142756e11);
        assertThat(v).containsEntry(s("fabric_port_pma_total", "device", "mlx4_0", "port", "2", "counter", "port_xmit_wait"), 3846.0);
        assertThat(v).containsEntry(s("fabric_port_rate_bytes_per_second", "device", "mlx4_0", "port", "1"), 5.0e9);
        assertThat(v).containsEntry(s("fabric_port_transmit_bytes_total", "device", "mlx5_0", "port", "1"), 1.1523046035392e13);
        assertThat(v).containsEntry(s("fabric_port_pma_total", "device", "mlx5_0", "port", "1", "counter", "unicast_xmit_packets"), 1.0907922116e10);
        assertThat(v).containsEntry(s("fabric_port_rate_bytes_per_second", "device", "mlx5_0", "port", "1"), 3.125e9);
        assertThat(v).containsEntry(s("fabric_port_physical_state_id", "device", "mlx5_0", "port", "1"), 4.0);
        assertThat(v).containsEntry(s("fabric_port_state_id", "device", "mlx5_0", "port", "1"), 4.0);
    }

    @Test
    void openMetricsAndNameFilter() {
        PrometheusRegistry reg = new PrometheusRegistry();
        FabricMetrics fm = new FabricMetrics();
        reg.register(fm);
        assertThat(Exposition.render(reg, null, List.of()).body()).isEmpty(); // before the first collection
        fm.update(model(Fixtures.open("host-a-ib")));
        Exposition.Rendered om = Exposition.render(reg, "application/openmetrics-text;version=1.0.0", List.of());
        assertThat(om.contentType()).startsWith("application/openmetrics-text; version=1.0.0");
        String body = new String(om.body(), StandardCharsets.UTF_8);
        assertThat(body).contains("# TYPE fabric_port_pma counter").endsWith("# EOF\n");
        Exposition.Rendered one = Exposition.render(reg, "text/plain", List.of("fabric_port_up", "fabric_port_pma_total"));
        Map<String, Double> v = PromText.parse(new String(one.body(), StandardCharsets.UTF_8));
        assertThat(v.keySet()).allMatch(k -> k.startsWith("fabric_port_up{") || k.startsWith("fabric_port_pma_total{"));
        assertThat(v.keySet()).anyMatch(k -> k.startsWith("fabric_port_pma_total{"));
        assertThat(one.contentType()).startsWith("text/plain; version=0.0.4");
    }

    @Test
    void jsonKeepsUnsignedCountersAndSnakeCase() throws Exception {
        String json = new String(ModelJson.toJson(model(Fixtures.open("host-broken"))), StandardCharsets.UTF_8);
        assertThat(json).contains("\"link_downed\" : 18446744073709551615");
        assertThat(json).contains("\"node_guid\" : \"b83f:d203:0012:3456\"");
        assertThat(json).contains("\"state\" : \"4: ACTIVE\"");
        assertThat(json).contains("\"collected_at\" : \"");
        var tree = new ObjectMapper().readTree(json);
        assertThat(tree.get("devices").size()).isEqualTo(3);
        var rdma = StreamSupport.stream(tree.get("collectors").spliterator(), false)
                .filter(c -> c.get("name").asText().equals("rdma")).findFirst().orElseThrow();
        assertThat(rdma.get("errors").size()).isGreaterThan(10);
    }
}
