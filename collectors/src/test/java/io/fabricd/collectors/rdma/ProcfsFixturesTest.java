package io.fabricd.collectors.rdma;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.collectors.CollectorConfig;
import io.fabricd.collectors.Fixtures;
import io.fabricd.collectors.run.HostCollection;
import io.fabricd.collectors.source.SnapshotHostSource;
import io.fabricd.model.HostModel;
import io.fabricd.model.RdmaPort;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** prometheus/procfs's fixtures, quirks included (the values node_exporter's tests expect). */
class ProcfsFixturesTest {

    @Test
    void readsEveryDeviceAndPort(@TempDir Path tmp) {
        HostModel m = HostCollection.standard(CollectorConfig.DEFAULT).collect(SnapshotHostSource.open(Fixtures.procfs(tmp)));
        assertThat(m.devices()).extracting(d -> d.name()).containsExactly("hfi1_0", "mlx4_0", "mlx5_0");
        assertThat(m.device("mlx5_0").orElseThrow().nodeGuid()).isEqualTo("0a7f:bc12:45ef:d23b");
        assertThat(m.device("hfi1_0").orElseThrow().boardId())
                .isEqualTo("HPE 100Gb 1-port OP101 QSFP28 x16 PCIe Gen3 with Intel Omni-Path Adapter");

        RdmaPort hfi = m.port("hfi1_0", 1).orElseThrow();
        assertThat(hfi.counters().get("port_rcv_data")).isEqualTo(345091702026L);
        assertThat(hfi.rate().bytesPerSecond()).isEqualTo(12_500_000_000L);

        RdmaPort mlx4p2 = m.port("mlx4_0", 2).orElseThrow();
        assertThat(mlx4p2.linkLayer()).isEqualTo("InfiniBand"); // file has an extra blank line
        assertThat(mlx4p2.counters().get("port_xmit_wait")).isEqualTo(3846L);
        assertThat(mlx4p2.rate().bytesPerSecond()).isEqualTo(5_000_000_000L);

        RdmaPort mlx5 = m.port("mlx5_0", 1).orElseThrow();
        assertThat(mlx5.physState().id()).isEqualTo(4); // "4: ACTIVE" in phys_state
        assertThat(mlx5.up()).isFalse();
        assertThat(mlx5.counters().get("port_xmit_data")).isEqualTo(2880761508848L);
        assertThat(mlx5.hwCounters()).containsEntry("req_cqe_error", 3481L).doesNotContainKey("lifespan");
        assertThat(mlx5.rate().bytesPerSecond()).isEqualTo(3_125_000_000L);
    }
}
