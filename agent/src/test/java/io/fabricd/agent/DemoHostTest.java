package io.fabricd.agent;

import static io.fabricd.testing.PromText.s;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.agent.demo.DemoHost;
import io.fabricd.agent.demo.SimulatedHostSource;
import io.fabricd.collectors.CollectorConfig;
import io.fabricd.collectors.run.HostCollection;
import io.fabricd.exporters.Exposition;
import io.fabricd.exporters.FabricMetrics;
import io.fabricd.model.HostModel;
import io.fabricd.model.RdmaPort;
import io.fabricd.testing.PromText;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class DemoHostTest {
    static final AtomicLong CLOCK = new AtomicLong();
    static final SimulatedHostSource DEMO = DemoHost.open(CLOCK::get);

    static HostModel at(long millis) {
        CLOCK.set(millis);
        return HostCollection.standard(CollectorConfig.DEFAULT).collect(DEMO);
    }

    @Test
    void realisticHostWithSideCars() throws Exception {
        HostModel m = at(0);
        assertThat(m.hostname()).isEqualTo("demo-gpu-node-01");
        assertThat(m.labels()).containsEntry("rack", "r07");
        assertThat(m.devices()).hasSize(8);
        assertThat(m.ports()).filteredOn(p -> "InfiniBand".equals(p.linkLayer())).hasSize(6);
        assertThat(m.ports()).filteredOn(p -> "Ethernet".equals(p.linkLayer())).hasSize(2);
        assertThat(m.ports()).allMatch(RdmaPort::up);
        assertThat(m.collector("rdma").orElseThrow().errors()).isEmpty();
        // 8 NVIDIA GPUs (class 0x0302, vendor 0x10de) in the PCI tree
        List<String> pci = DEMO.list("sys/bus/pci/devices");
        long gpus = pci.stream().filter(d -> {
            try {
                return DEMO.readLine("sys/bus/pci/devices/" + d + "/vendor").equals("0x10de")
                        && DEMO.readLine("sys/bus/pci/devices/" + d + "/class").startsWith("0x0302");
            } catch (Exception e) {
                return false;
            }
        }).count();
        assertThat(gpus).isEqualTo(8);
        // side-cars of the spec, with the planted problems
        ObjectMapper json = new ObjectMapper();
        JsonNode dcb7 = json.readTree(DEMO.read("fabricd/dcb/ens8f0np0.json"));
        assertThat(dcb7.at("/pfc/enabled").size()).isZero();
        JsonNode dcb6 = json.readTree(DEMO.read("fabricd/dcb/ens7f0np0.json"));
        assertThat(dcb6.at("/pfc/enabled/0").asInt()).isEqualTo(3);
        assertThat(DEMO.readLine("sys/class/net/ens7f0np0/mtu")).isEqualTo("1500");
        assertThat(json.readTree(DEMO.read("fabricd/verbs/mlx5_6.json")).at("/ports/1/active_mtu").asInt()).isEqualTo(1024);
        assertThat(DEMO.read("fabricd/ethtool/ens7f0np0.txt")).startsWith("NIC statistics:\n").contains("     rx_prio3_pause: ");
        assertThat(DEMO.read("fabricd/ethtool/ens8f0np0.txt")).doesNotContain("rx_prio3_pause");
        // no PFC on mlx5_7's port, 802.3x global pause instead (and mlx5 counts it)
        assertThat(json.readTree(DEMO.read("fabricd/ethtool/ens8f0np0.pause.json")).get("rx").asBoolean()).isTrue();
        assertThat(DEMO.read("fabricd/ethtool/ens8f0np0.txt")).contains("     tx_global_pause: ");
        assertThat(DEMO.read("proc/modules")).contains("nvidia_peermem");
        // GPU 0000:dc:00.0 is alone on NUMA node 3; every NIC is on nodes 0-2
        assertThat(DEMO.readLine("sys/bus/pci/devices/0000:dc:00.0/numa_node")).isEqualTo("3");
        assertThat(m.devices()).allMatch(d -> d.numaNode() != null && d.numaNode() < 3);
        assertThat(m.port("mlx5_3", 1).orElseThrow().saturated()).contains("symbol_error");
        // config spaces (binary, through the ttar's Base64 records): the ids the sysfs files name, ACS redirect
        // planted on mlx5_2's switch port, mlx5_5 at Max Read Request 512; the IOMMU in passthrough
        byte[] config = DEMO.readBytes("sys/bus/pci/devices/0000:4c:00.0/config");
        assertThat(config).hasSize(4096);
        assertThat(String.format("0x%02x%02x", config[1], config[0])).isEqualTo(DEMO.readLine("sys/bus/pci/devices/0000:4c:00.0/vendor"));
        assertThat(m.pcieConfig("0000:4a:01.0").orElseThrow().acs().redirects()).isTrue();
        assertThat(m.pcieConfig("0000:af:00.0").orElseThrow().maxReadRequest()).isEqualTo(512);
        assertThat(m.pcieConfig("0000:4c:00.0").orElseThrow().maxReadRequest()).isEqualTo(4096);
        assertThat(m.iommu().devices()).hasSize(16).allSatisfy(d -> assertThat(m.iommu().mode(d)).isEqualTo("passthrough"));
        assertThat(m.iommu().cmdline()).containsExactly("intel_iommu=on", "iommu=pt");
    }

    @Test
    void countersAdvanceDeterministically() {
        RdmaPort p0 = at(0).port("mlx5_0", 1).orElseThrow();
        RdmaPort p10 = at(10_000).port("mlx5_0", 1).orElseThrow();
        RdmaPort again = at(10_000).port("mlx5_0", 1).orElseThrow();
        assertThat(p10.counters()).isEqualTo(again.counters());
        assertThat(p10.hwCounters()).isEqualTo(again.hwCounters());
        long bytes = (p10.counters().get("port_xmit_data") - p0.counters().get("port_xmit_data")) * 4;
        assertThat(bytes / 10.0).isBetween(4.0e9, 8.0e9); // 4-8 GB/s
        assertThat(p10.counters().get("symbol_error")).isEqualTo(p0.counters().get("symbol_error"));
        // the saturated counter stays pinned, the flapping one keeps retraining
        RdmaPort bad0 = at(0).port("mlx5_3", 1).orElseThrow();
        RdmaPort bad1 = at(3_600_000).port("mlx5_3", 1).orElseThrow();
        assertThat(bad1.counters().get("symbol_error")).isEqualTo(65535L);
        assertThat(bad1.saturated()).contains("symbol_error");
        assertThat(bad1.counters().get("link_error_recovery")).isGreaterThan(bad0.counters().get("link_error_recovery"));
        // the lossy RoCE port without PFC keeps retransmitting
        RdmaPort l0 = at(0).port("mlx5_7", 1).orElseThrow();
        RdmaPort l1 = at(60_000).port("mlx5_7", 1).orElseThrow();
        assertThat(l1.hwCounters().get("out_of_sequence")).isGreaterThan(l0.hwCounters().get("out_of_sequence"));
        assertThat(l1.hwCounters().get("np_ecn_marked_roce_packets")).isEqualTo(l0.hwCounters().get("np_ecn_marked_roce_packets"));
    }

    @Test
    void ethtoolSideCarAdvances() throws Exception {
        CLOCK.set(0);
        String a = DEMO.read("fabricd/ethtool/ens8f0np0.txt");
        CLOCK.set(10_000);
        String b = DEMO.read("fabricd/ethtool/ens8f0np0.txt");
        assertThat(stat(b, "rx_discards_phy") - stat(a, "rx_discards_phy")).isEqualTo(200);
        assertThat(b.split("\n")).hasSameSizeAs(a.split("\n"));
    }

    private static long stat(String text, String name) {
        for (String l : text.split("\n")) {
            if (l.strip().startsWith(name + ":")) {
                return Long.parseLong(l.substring(l.indexOf(':') + 1).strip());
            }
        }
        throw new AssertionError(name + " not in ethtool output");
    }

    @Test
    void metricsOfTheDemo() {
        HostModel m = at(5_000);
        Map<String, Double> v = PromText.parse(new String(Exposition.render(FabricMetrics.build(m), null).body(), StandardCharsets.UTF_8));
        assertThat(v).containsEntry(s("fabric_port_rate_bytes_per_second", "device", "mlx5_7", "port", "1"), 5.0e10);
        assertThat(v.keySet()).filteredOn(k -> k.startsWith("fabric_port_hw_stat_total{")).hasSize(8 * 29);
    }
}
