package io.fabricd.collectors.rdma;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.collectors.CollectorConfig;
import io.fabricd.collectors.Fixtures;
import io.fabricd.collectors.run.HostCollection;
import io.fabricd.collectors.source.SnapshotHostSource;
import io.fabricd.model.CollectorRun;
import io.fabricd.model.CounterWidths;
import io.fabricd.model.HostModel;
import io.fabricd.model.RdmaDevice;
import io.fabricd.model.RdmaPort;
import io.fabricd.model.ReadError;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RdmaCollectorTest {

    static HostModel collect(String fixture) {
        return HostCollection.standard(CollectorConfig.DEFAULT).collect(Fixtures.open(fixture));
    }

    @Test
    void infinibandHcaHostA() {
        HostModel m = collect("host-a-ib");
        assertThat(m.hostname()).isEqualTo("dgx-h100-01");
        RdmaDevice d = m.device("mlx5_0").orElseThrow();
        assertThat(d.nodeGuid()).isEqualTo("a088:c203:00a1:b2c4");
        assertThat(d.sysImageGuid()).isEqualTo("a088:c203:00a1:b2c4");
        assertThat(d.nodeType()).isEqualTo("1: CA");
        assertThat(d.fwVer()).isEqualTo("28.39.1002");
        assertThat(d.hcaType()).isEqualTo("MT4129");
        assertThat(d.boardId()).isEqualTo("MT_0000000838");
        assertThat(d.pciAddress()).isEqualTo("0000:19:00.0");
        assertThat(d.numaNode()).isZero();
        RdmaPort p = d.ports().get(0);
        assertThat(p.port()).isEqualTo(1);
        assertThat(p.up()).isTrue();
        assertThat(p.state().name()).isEqualTo("ACTIVE");
        assertThat(p.physState().name()).isEqualTo("LinkUp");
        assertThat(p.rate().bytesPerSecond()).isEqualTo(50_000_000_000L);
        assertThat(p.rate().width()).isEqualTo(4);
        assertThat(p.rate().speed()).isEqualTo("NDR");
        assertThat(p.linkLayer()).isEqualTo("InfiniBand");
        assertThat(p.lid()).isEqualTo(0x1a);
        assertThat(p.smLid()).isEqualTo(1);
        assertThat(p.counters()).hasSize(21).containsEntry("link_downed", 1L).containsKey("VL15_dropped");
        assertThat(p.counters().get("port_xmit_data")).isEqualTo(24543663075294L);
        assertThat(p.saturated()).isEmpty();
        assertThat(p.hwCounters()).doesNotContainKey("lifespan").containsEntry("duplicate_request", 12L)
                .containsEntry("local_ack_timeout_err", 3L).hasSize(29);
        assertThat(p.gids()).hasSize(1);
        assertThat(p.gids().get(0).type()).isEqualTo("IB/RoCE v1");
        assertThat(p.gids().get(0).netdev()).isNull();
        assertThat(p.netdev()).isEqualTo("ibp25s0"); // IPoIB netdev of the same PCI function
        CollectorRun run = m.collector("rdma").orElseThrow();
        assertThat(run.ok()).isTrue();
        assertThat(run.errors()).isEmpty(); // EINVAL on empty GID slots is normal, not an error
    }

    @Test
    void roceHostB() {
        RdmaPort p = collect("host-b-roce").port("mlx5_0", 1).orElseThrow();
        assertThat(p.linkLayer()).isEqualTo("Ethernet");
        assertThat(p.rate().bytesPerSecond()).isEqualTo(12_500_000_000L);
        assertThat(p.netdev()).isEqualTo("ens1f0np0");
        assertThat(p.gids()).extracting(g -> g.type()).containsExactly("IB/RoCE v1", "RoCE v2", "IB/RoCE v1", "RoCE v2");
        assertThat(p.gids().get(3).ipv4Mapped()).isTrue();
        assertThat(p.gids().get(3).gid()).isEqualTo("0000:0000:0000:0000:0000:ffff:0a0a:010b");
        assertThat(p.hwCounters()).containsEntry("np_ecn_marked_roce_packets", 48211L).containsEntry("rp_cnp_handled", 51234L);
    }

    @Test
    void softRoceHasNoCountersDirAndThatIsNotAnError() {
        HostModel m = collect("host-c-rxe");
        RdmaDevice d = m.device("rxe0").orElseThrow();
        assertThat(d.pciAddress()).isNull();
        assertThat(d.hcaType()).isNull();
        assertThat(d.fwVer()).isEmpty();
        assertThat(d.parent()).isEqualTo("ens3");
        assertThat(d.nodeGuid()).isEqualTo("5054:00ff:fe12:3456");
        RdmaPort p = d.ports().get(0);
        assertThat(p.counters()).isEmpty();
        assertThat(p.hwCounters()).hasSize(15).containsEntry("sent_pkts", 1048576L).doesNotContainKey("lifespan");
        assertThat(p.rate().bytesPerSecond()).isEqualTo(312_500_000L);
        assertThat(p.netdev()).isEqualTo("ens3");
        assertThat(m.collector("rdma").orElseThrow().errors()).isEmpty();
    }

    /** Captured from Debian's 6.1 kernel with tools/capture-host.sh in the Soft-RoCE VM. */
    @Test
    void realKernelSoftRoceSnapshot() {
        HostModel m = collect("real-softroce-6.1");
        assertThat(m.devices()).extracting(RdmaDevice::name).containsExactly("rxe0", "rxe1");
        for (RdmaDevice d : m.devices()) {
            assertThat(d.parent()).startsWith("veth");
            assertThat(d.fwVer()).isEmpty();
            assertThat(d.pciAddress()).isNull();
            RdmaPort p = d.ports().get(0);
            assertThat(p.up()).isTrue();
            assertThat(p.linkLayer()).isEqualTo("Ethernet");
            assertThat(p.counters()).isEmpty();
            assertThat(p.hwCounters()).containsKeys("sent_pkts", "rcvd_pkts", "rdma_sends", "retry_exceeded_err")
                    .doesNotContainKey("lifespan");
            assertThat(p.gids()).hasSize(2).allSatisfy(g -> assertThat(g.type()).isEqualTo("RoCE v2"));
            assertThat(p.gids().get(1).ipv4Mapped()).isTrue();
            assertThat(p.netdev()).isEqualTo(d.parent());
            assertThat(p.rate()).isNotNull();
        }
        assertThat(m.collector("rdma").orElseThrow().errors()).isEmpty();
    }

    @Test
    void brokenDevicesDegradeOnlyThemselves() {
        HostModel m = collect("host-broken");
        // the good device is complete
        RdmaPort good = m.port("mlx5_0", 1).orElseThrow();
        assertThat(good.counters()).hasSize(21);
        assertThat(good.hwCounters()).hasSize(29);
        assertThat(good.up()).isTrue();
        assertThat(good.rate()).isNotNull();

        // the broken one keeps every readable file
        RdmaDevice bad = m.device("mlx5_1").orElseThrow();
        assertThat(bad.nodeGuid()).isEqualTo("b83f:d203:0012:3457");
        assertThat(bad.hcaType()).isNull();
        assertThat(bad.ports()).hasSize(1);
        RdmaPort bp = bad.ports().get(0);
        assertThat(bp.state()).isNull();
        assertThat(bp.rate()).isNull();
        assertThat(bp.physState().id()).isEqualTo(5);
        assertThat(bp.counters()).doesNotContainKeys("symbol_error", "port_rcv_errors", "port_xmit_discards",
                "VL15_dropped", "port_xmit_packets", "port_rcv_packets");
        assertThat(bp.counters()).containsEntry("link_downed", -1L); // 2^64-1 as unsigned
        // above the 8-bit maximum: the value proves the counter is wider, so it is not "pinned at 255"
        assertThat(bp.saturated()).doesNotContain("link_downed");
        assertThat(bp.counters()).containsKeys("port_xmit_data", "port_rcv_data", "link_error_recovery");
        assertThat(bp.hwCounters()).doesNotContainKeys("out_of_buffer", "np_cnp_sent").containsKey("rx_write_requests");

        // a device with nothing but ports/1/state
        RdmaDevice bare = m.device("mlx5_2").orElseThrow();
        assertThat(bare.ports()).singleElement().satisfies(p -> {
            assertThat(p.state().name()).isEqualTo("ACTIVE");
            assertThat(p.counters()).isEmpty();
        });

        List<ReadError> errors = m.collector("rdma").orElseThrow().errors();
        assertThat(m.collector("rdma").orElseThrow().ok()).isTrue();
        String b = "sys/class/infiniband/mlx5_1/";
        assertThat(errors).extracting(ReadError::path).contains(
                b + "ports/1/counters/symbol_error", b + "ports/1/counters/port_rcv_errors",
                b + "ports/1/counters/port_xmit_discards", b + "ports/1/counters/VL15_dropped",
                b + "ports/1/counters/port_xmit_packets", b + "ports/1/counters/port_rcv_packets",
                b + "ports/1/rate", b + "ports/1/state", b + "hca_type", b + "ports/lost+found",
                "sys/class/infiniband/mlx5_2/ports/1/rate");
        // an absent identity file is absence, not a read error
        assertThat(errors).extracting(ReadError::path).doesNotContain("sys/class/infiniband/mlx5_2/node_guid",
                "sys/class/infiniband/mlx5_2/node_type");
        assertThat(errors).filteredOn(e -> e.path().endsWith("counters/port_xmit_packets"))
                .extracting(ReadError::error).containsExactly("EIO");
        assertThat(errors).filteredOn(e -> e.path().endsWith("counters/symbol_error"))
                .extracting(ReadError::error).containsExactly("not a counter: 'N/A (no PMA)'");
        // links out of the folder and loops are devices whose files all fail, nothing more
        assertThat(m.devices()).extracting(RdmaDevice::name).containsExactly("mlx5_0", "mlx5_1", "mlx5_2");
        assertThat(errors).filteredOn(e -> e.path().equals("sys/class/infiniband/bnxt_re0"))
                .extracting(ReadError::error).containsExactly("EXDEV");
        assertThat(errors).filteredOn(e -> e.path().equals("sys/class/infiniband/rocep49s0f0"))
                .extracting(ReadError::error).containsExactly("ELOOP");
        assertThat(errors).filteredOn(e -> e.path().equals("sys/class/infiniband/mlx5_3"))
                .extracting(ReadError::error).containsExactly("EACCES");
        // no error for the good device
        assertThat(errors).noneMatch(e -> e.path().contains("mlx5_0"));
    }

    @Test
    void saturatedCountersAreFlaggedAndStillExported(@TempDir Path tmp) throws Exception {
        Path port = tmp.resolve("sys/class/infiniband/ibp25s0/ports/1");
        Files.createDirectories(port.resolve("counters"));
        Files.writeString(tmp.resolve("sys/class/infiniband/ibp25s0/node_guid"), "a088:c203:00a1:b2c4\n");
        Files.writeString(tmp.resolve("sys/class/infiniband/ibp25s0/node_type"), "1: CA\n");
        for (String[] kv : new String[][] {{"symbol_error", "65535"}, {"port_rcv_errors", "65534"},
                {"link_downed", "255"}, {"local_link_integrity_errors", "15"}, {"excessive_buffer_overrun_errors", "14"},
                {"port_xmit_wait", "4294967295"}, {"port_xmit_data", "4294967295"}, {"port_rcv_data", "17"}}) {
            Files.writeString(port.resolve("counters/" + kv[0]), kv[1] + "\n");
        }
        HostModel m = HostCollection.standard(CollectorConfig.DEFAULT).collect(SnapshotHostSource.open(tmp));
        RdmaPort p = m.port("ibp25s0", 1).orElseThrow();
        assertThat(p.saturated()).containsExactlyInAnyOrder("symbol_error", "link_downed",
                "local_link_integrity_errors", "port_xmit_wait", "port_xmit_data");
        assertThat(p.counters()).containsEntry("symbol_error", 65535L);
    }

    @Test
    void dataCountersAre64BitWhenExtendedCountersExist() {
        RdmaPort p = collect("host-a-ib").port("mlx5_0", 1).orElseThrow();
        assertThat(CounterWidths.width("port_xmit_data", p.counters())).isZero();
        assertThat(CounterWidths.width("symbol_error", p.counters())).isEqualTo(16);
    }

    @Test
    void deviceFiltersSkipExcludedDevices() {
        HostModel m = HostCollection.standard(new CollectorConfig(List.of("mlx5_*"), List.of("mlx5_1", "mlx5_[23]"), Set.of()))
                .collect(Fixtures.open("host-broken"));
        assertThat(m.devices()).extracting(RdmaDevice::name).containsExactly("mlx5_0");
    }

    @Test
    void aHostWithoutRdmaHasZeroDevicesAndIsFine(@TempDir Path tmp) throws Exception {
        Files.createDirectories(tmp.resolve("sys/class"));
        HostModel m = HostCollection.standard(CollectorConfig.DEFAULT).collect(SnapshotHostSource.open(tmp));
        assertThat(m.devices()).isEmpty();
        assertThat(m.collector("rdma").orElseThrow().ok()).isTrue();
        assertThat(m.collector("rdma").orElseThrow().errors()).isEmpty();
    }
}
