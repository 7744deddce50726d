package io.fabricd.exporters;

import static io.fabricd.testing.PromText.s;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.collectors.CollectorConfig;
import io.fabricd.collectors.Fixtures;
import io.fabricd.collectors.run.HostCollection;
import io.fabricd.model.HostModel;
import io.fabricd.testing.PromText;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class HostFamiliesTest {

    static Map<String, Double> metrics(String fixture, boolean all) {
        HostModel m = HostCollection.standard(CollectorConfig.DEFAULT).collect(Fixtures.open(fixture));
        return PromText.parse(new String(Exposition.render(FabricMetrics.build(m, all, List.of()), null).body(), StandardCharsets.UTF_8));
    }

    @Test
    void pfcAndPauseFramesOfARocePort() {
        Map<String, Double> v = metrics("host-b-roce", false);
        for (int p = 0; p < 8; p++) {
            assertThat(v).containsEntry(s("fabric_pfc_enabled", "netdev", "ens1f0np0", "priority", "" + p), p == 3 ? 1.0 : 0.0);
        }
        assertThat(v).containsEntry(s("fabric_pfc_pause_frames_total", "netdev", "ens1f0np0", "priority", "3", "direction", "rx"), 90412.0);
        assertThat(v).containsEntry(s("fabric_pfc_pause_frames_total", "netdev", "ens1f0np0", "priority", "3", "direction", "tx"), 118823.0);
        assertThat(v).containsEntry(s("fabric_pfc_pause_seconds_total", "netdev", "ens1f0np0", "priority", "3", "direction", "tx"), 6.100344);
        assertThat(v).containsEntry(s("fabric_netdev_mtu_bytes", "netdev", "ens1f0np0"), 9000.0);
        assertThat(v).containsEntry(s("fabric_port_active_mtu_bytes", "device", "mlx5_0", "port", "1"), 4096.0);
        assertThat(v).containsEntry(s("fabric_port_max_mtu_bytes", "device", "mlx5_0", "port", "1"), 4096.0);
        assertThat(v).containsEntry(s("fabric_port_mtu_derived", "device", "mlx5_0", "port", "1"), 0.0);
        assertThat(v).containsEntry(s("fabric_netdev_priority_bytes_total", "netdev", "ens1f0np0", "priority", "3", "direction", "rx"), 12683536413376.0);
        assertThat(v).containsEntry(s("fabric_netdev_discards_total", "netdev", "ens1f0np0", "stat", "rx_discards_phy"), 0.0);
        assertThat(v).containsEntry(s("fabric_roce_vport_bytes_total", "netdev", "ens1f0np0", "direction", "tx"), 12683675060484.0);
        assertThat(v).containsEntry(s("fabric_roce_ecn_marked_packets_total", "device", "mlx5_0", "port", "1"), 48211.0);
        assertThat(v).containsEntry(s("fabric_roce_cnp_handled_total", "device", "mlx5_0", "port", "1"), 51234.0);
        assertThat(v).containsEntry(s("fabric_global_pause_enabled", "netdev", "ens1f0np0", "direction", "rx"), 0.0);
        assertThat(v).containsEntry(s("fabric_gpu_nic_path", "gpu", "0000:32:00.0", "device", "mlx5_0", "path", "PHB"), 1.0);
        assertThat(v).containsEntry(s("fabric_gpu_nic_path", "gpu", "0000:ca:00.0", "device", "mlx5_0", "path", "SYS"), 1.0);
        assertThat(v).containsEntry("fabric_gpudirect_rdma_enabled", 0.0);
        assertThat(v).containsEntry(s("fabric_queue_pairs", "device", "mlx5_0", "state", "ERR"), 1.0);
        assertThat(v.keySet()).noneMatch(k -> k.startsWith("fabric_netdev_stat_total"));
    }

    @Test
    void everyPriorityStatisticOfEveryFixtureIsExported() {
        // the exporter looks only at the rx_prio* and tx_prio* ranges of the sorted statistics: the
        // same series as matching every name (ConnectX names around them: rx_prio0_buf_discard, ...)
        Pattern prio = Pattern.compile("([rt]x)_prio([0-7])_(pause|pause_duration|bytes|packets|discards)");
        Map<String, String> family = Map.of("pause", "fabric_pfc_pause_frames_total", "pause_duration", "fabric_pfc_pause_seconds_total",
                "bytes", "fabric_netdev_priority_bytes_total", "packets", "fabric_netdev_priority_packets_total",
                "discards", "fabric_netdev_priority_discards_total");
        int checked = 0;
        for (String fixture : new String[] {"host-b-roce", "host-e-roce-variants", "host-f-big"}) {
            HostModel m = HostCollection.standard(CollectorConfig.DEFAULT).collect(Fixtures.open(fixture));
            Map<String, Double> v = PromText.parse(new String(Exposition.render(FabricMetrics.build(m, false, List.of()), null).body(),
                    StandardCharsets.UTF_8));
            Set<String> expected = new TreeSet<>();
            for (var n : m.netdevs()) {
                n.stats().forEach((k, val) -> {
                    var mt = prio.matcher(k);
                    if (mt.matches()) {
                        expected.add(mt.group(3).equals("discards")
                                ? s(family.get("discards"), "netdev", n.name(), "priority", mt.group(2))
                                : s(family.get(mt.group(3)), "netdev", n.name(), "priority", mt.group(2), "direction", mt.group(1)));
                    }
                });
            }
            // pause frames may also come from DCB counters (a netdev without them in ethtool): a superset
            assertThat(v.keySet()).as(fixture).containsAll(expected);
            Set<String> got = new TreeSet<>(v.keySet());
            got.removeIf(k -> !k.startsWith("fabric_netdev_priority_") && !k.startsWith("fabric_pfc_pause_seconds")
                    || k.startsWith("fabric_netdev_priority_buffer_") || k.startsWith("fabric_netdev_priority_congestion_")
                    || k.startsWith("fabric_netdev_priority_ecn_"));
            expected.removeIf(k -> k.startsWith("fabric_pfc_pause_frames"));
            assertThat(got).as(fixture).isEqualTo(expected);
            checked += expected.size();
        }
        assertThat(checked).isGreaterThan(100);
    }

    @Test
    void allNetdevStatsAreOptIn() {
        Map<String, Double> v = metrics("host-b-roce", true);
        assertThat(v).containsEntry(s("fabric_netdev_stat_total", "netdev", "ens1f0np0", "stat", "rx_crc_errors_phy"), 0.0);
        assertThat(v).containsEntry(s("fabric_netdev_stat_total", "netdev", "ens1f0np0", "stat", "rx_corrected_bits_phy"), 17.0);
    }

    @Test
    void pcieWidthsAndGpuDirect() {
        Map<String, Double> v = metrics("host-d-topology", false);
        assertThat(v).containsEntry(s("fabric_pcie_link_width", "pci", "0000:19:00.0", "kind", "nic"), 8.0);
        assertThat(v).containsEntry(s("fabric_pcie_link_max_width", "pci", "0000:19:00.0", "kind", "nic"), 16.0);
        assertThat(v).containsEntry(s("fabric_pcie_link_max_speed_transfers_per_second", "pci", "0000:1c:00.0", "kind", "gpu"), 1.6e10);
        assertThat(v).containsEntry(s("fabric_pcie_link_speed_transfers_per_second", "pci", "0000:16:00.0", "kind", "bridge"), 3.2e10);
        assertThat(v).containsEntry("fabric_gpudirect_rdma_enabled", 0.0);
        assertThat(v.keySet()).filteredOn(k -> k.startsWith("fabric_gpu_nic_path{")).hasSize(5); // the numa -1 GPU has no verdict
        assertThat(metrics("host-a-ib", false)).containsEntry("fabric_gpudirect_rdma_enabled", 1.0);
        assertThat(metrics("host-c-rxe", false).keySet()).noneMatch(k -> k.startsWith("fabric_gpudirect"));
    }

    @Test
    void pauseFramesFallBackToDcbCounters() {
        Map<String, Double> v = metrics("host-e-roce-variants", false);
        assertThat(v).containsEntry(s("fabric_pfc_enabled", "netdev", "ens1f0np0", "priority", "4"), 1.0);
        assertThat(v).containsEntry(s("fabric_pfc_pause_frames_total", "netdev", "ens1f0np0", "priority", "4", "direction", "rx"), 90412.0);
        assertThat(v).containsEntry(s("fabric_dcb_supported", "netdev", "veth0"), 0.0);
        assertThat(v.keySet()).noneMatch(k -> k.startsWith("fabric_pfc_enabled{") && k.contains("veth0"));
        assertThat(v).containsEntry(s("fabric_port_active_mtu_bytes", "device", "mlx5_1", "port", "1"), 1024.0);
        assertThat(v).containsEntry(s("fabric_port_mtu_derived", "device", "mlx5_1", "port", "1"), 1.0);
        assertThat(v).containsEntry(s("fabric_roce_ecn_enabled", "netdev", "ens1f0np0", "point", "rp", "priority", "3"), 0.0);
        assertThat(v).containsEntry(s("fabric_pfc_storm_events_total", "netdev", "ens2f0np0", "level", "warning"), 3.0);
        assertThat(v).containsEntry(s("fabric_netdev_info", "netdev", "ens1f0np0", "type", "ethernet", "driver", "mlx5_core", "trust", "pcp"), 1.0);
    }
}
