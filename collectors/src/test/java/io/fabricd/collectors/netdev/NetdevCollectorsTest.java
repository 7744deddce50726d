package io.fabricd.collectors.netdev;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.collectors.CollectorConfig;
import io.fabricd.collectors.Fixtures;
import io.fabricd.collectors.run.HostCollection;
import io.fabricd.collectors.source.SnapshotHostSource;
import io.fabricd.collectors.verbs.PortAttrsCollector;
import io.fabricd.model.HostModel;
import io.fabricd.model.NetdevInfo;
import io.fabricd.model.PortAttrs;
import io.fabricd.model.ReadError;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class NetdevCollectorsTest {

    static HostModel collect(String fixture) {
        return HostCollection.standard(CollectorConfig.DEFAULT).collect(Fixtures.open(fixture));
    }

    static HostModel collectCopy(Path tmp) {
        return HostCollection.standard(CollectorConfig.DEFAULT).collect(SnapshotHostSource.open(tmp));
    }

    static List<ReadError> netdevErrors(HostModel m) {
        return m.collectors().stream().filter(c -> c.name().equals("netdev")).findFirst().orElseThrow().errors();
    }

    @Test
    void aNetdevThatIsGoneIsOneErrorAndAMissingMtuIsItsOwn(@TempDir Path tmp) throws Exception {
        Path root = Fixtures.copy("host-b-roce", tmp);
        Path mtu = root.resolve("sys/class/net/ens1f0np0").toRealPath().resolve("mtu");
        Files.delete(mtu);
        HostModel noMtu = collectCopy(root);
        assertThat(netdevErrors(noMtu)).containsExactly(new ReadError("sys/class/net/ens1f0np0/mtu", "ENOENT"));
        assertThat(noMtu.netdev("ens1f0np0").orElseThrow().mtu()).isNull();
        assertThat(noMtu.netdev("ens1f0np0").orElseThrow().operstate()).isEqualTo("up");

        Files.delete(root.resolve("sys/class/net/ens1f0np0"));
        HostModel gone = collectCopy(root);
        assertThat(netdevErrors(gone)).containsExactly(new ReadError("sys/class/net/ens1f0np0", "ENOENT"));
        assertThat(gone.netdev("ens1f0np0")).isEmpty();
    }

    @Test
    void roceNetdevWithPfcOnTheRdmaPriority() {
        HostModel m = collect("host-b-roce");
        NetdevInfo n = m.netdev("ens1f0np0").orElseThrow();
        assertThat(n.mtu()).isEqualTo(9000);
        assertThat(n.operstate()).isEqualTo("up");
        assertThat(n.carrier()).isEqualTo(1);
        assertThat(n.speedMbps()).isEqualTo(100000L);
        assertThat(n.type()).isEqualTo(1);
        assertThat(n.driver()).isEqualTo("mlx5_core");
        assertThat(n.stats()).containsEntry("rx_prio3_pause", 90412L).containsEntry("tx_prio3_pause_duration", 6100344L);
        assertThat(n.pause().rx()).isFalse();
        assertThat(n.dcb().supported()).isTrue();
        assertThat(n.dcb().pfcEnabled()).containsExactly(3);
        assertThat(n.trust()).isEqualTo("dscp");
        assertThat(n.trustSource()).isEqualTo("dcb-app");
        PortAttrs a = m.portAttrs("mlx5_0", 1).orElseThrow();
        assertThat(a.activeMtu()).isEqualTo(4096);
        assertThat(a.mtuSource()).isEqualTo("verbs");
        assertThat(a.roceMode()).isEqualTo("RoCE v2");
        assertThat(a.roceTos()).isEqualTo(106);
        assertThat(m.collectors()).allSatisfy(c -> assertThat(c.errors()).as(c.name()).isEmpty());
    }

    @Test
    void pfcOnAnotherPriorityPcpTrustEcnOffAndGlobalPause() {
        HostModel m = collect("host-e-roce-variants");
        NetdevInfo n = m.netdev("ens1f0np0").orElseThrow();
        assertThat(n.dcb().pfcEnabled()).containsExactly(4);
        assertThat(n.trust()).isEqualTo("pcp");
        assertThat(n.trustSource()).isEqualTo("qos/trust");
        assertThat(n.ecnNp()).hasSize(8).containsEntry(3, false);
        assertThat(n.ecnRp()).containsEntry(3, false);
        assertThat(n.pause().rx()).isTrue();
        assertThat(n.stats()).containsKey("rx_prio4_pause").doesNotContainKey("rx_prio3_pause");

        NetdevInfo off = m.netdev("ens1f1np1").orElseThrow();
        assertThat(off.dcb().pfcEnabled()).isEmpty();
        assertThat(off.trust()).isEqualTo("dscp");
        assertThat(off.stats()).doesNotContainKey("rx_prio3_pause");

        NetdevInfo veth = m.netdev("veth0").orElseThrow();
        assertThat(veth.dcb().supported()).isFalse();
        assertThat(veth.trust()).isNull();
        assertThat(m.collector("dcb").orElseThrow().errors()).isEmpty();
    }

    @Test
    void derivedActiveMtuFollowsTheNetdevMtu() {
        HostModel m = collect("host-e-roce-variants");
        assertThat(m.portAttrs("mlx5_0", 1).orElseThrow()).satisfies(a -> {
            assertThat(a.activeMtu()).isEqualTo(4096); // netdev 4200
            assertThat(a.mtuSource()).isEqualTo("derived");
            assertThat(a.maxMtu()).isEqualTo(4096);
        });
        assertThat(m.portAttrs("mlx5_1", 1).orElseThrow().activeMtu()).isEqualTo(1024); // 1500
        assertThat(m.portAttrs("mlx5_2", 1).orElseThrow().activeMtu()).isEqualTo(4096); // 9000
        assertThat(m.portAttrs("rxe0", 1).orElseThrow().activeMtu()).isEqualTo(1024); // rxe 1500 - 80
        assertThat(m.portAttrs("mlx5_0", 1).orElseThrow().roceMode()).isNull(); // no configfs: kernel defaults
    }

    @ParameterizedTest
    @CsvSource({"1500,96,1024", "2144,96,2048", "2143,96,1024", "4192,96,4096", "4191,96,2048", "4100,96,2048",
        "9000,96,4096", "4200,96,4096", "1500,80,1024", "4176,80,4096", "4175,80,2048", "300,96,0", "576,96,256"})
    void ibMtuFromNetdevMtu(int netdev, int overhead, int expected) {
        assertThat(PortAttrsCollector.derivedActiveMtu(netdev, overhead)).isEqualTo(expected);
    }

    @Test
    void infinibandHostHasIpoibNetdevAndNoDcb() {
        HostModel m = collect("host-a-ib");
        NetdevInfo n = m.netdev("ibp25s0").orElseThrow();
        assertThat(n.type()).isEqualTo(32);
        assertThat(n.mtu()).isEqualTo(4092);
        assertThat(n.speedMbps()).isNull(); // EINVAL on IPoIB speed is normal
        assertThat(n.dcb()).isNull();
        assertThat(m.portAttrs("mlx5_0", 1).orElseThrow().activeMtu()).isEqualTo(4096);
        assertThat(m.collectors()).allSatisfy(c -> assertThat(c.errors()).as(c.name()).isEmpty());
    }

    @Test
    void queuePairsFromTheSideCar() {
        HostModel m = collect("host-b-roce");
        assertThat(m.qps()).singleElement().satisfies(q -> {
            assertThat(q.device()).isEqualTo("mlx5_0");
            assertThat(q.byState()).containsEntry("RTS", 2).containsEntry("ERR", 1);
            assertThat(q.maxQp()).isEqualTo(262144L);
        });
    }

    @Test
    void realSoftRoceNetdevs() {
        HostModel m = collect("real-softroce-6.1");
        assertThat(m.netdevs()).extracting(NetdevInfo::name).containsExactly("veth0", "veth1");
        assertThat(m.netdev("veth0").orElseThrow().mtu()).isEqualTo(1500);
        assertThat(m.portAttrs("rxe0", 1).orElseThrow().activeMtu()).isEqualTo(1024);
    }
}
