package io.fabricd.collectors;

import io.fabricd.collectors.run.HostCollection;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.model.CollectorRun;
import io.fabricd.model.DriverStats.Dir;
import io.fabricd.model.DriverStats;
import io.fabricd.model.HostModel;
import io.fabricd.model.NetdevInfo;
import io.fabricd.model.RdmaDevice;
import io.fabricd.model.TransportCounters;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The sysfs shapes of RDMA drivers besides mlx5 and rxe (host-g-drivers, from their kernel sources), and their statistics' names. */
class DriversTest {

    @Test
    void everyDriverReadsCleanly() {
        HostModel m = HostCollection.standard(CollectorConfig.DEFAULT).collect(Fixtures.open("host-g-drivers"));
        assertThat(m.devices()).extracting(RdmaDevice::name).containsExactly("bnxt_re0", "efa_0", "hns_0", "irdma0", "mlx4_0", "qedr0",
                "siw0");
        for (CollectorRun r : m.collectors()) {
            assertThat(r.ok()).as(r.name()).isTrue();
            assertThat(r.errors()).as(r.name()).isEmpty();
        }
        // efa: no counters/, port and device hw_counters, link layer Unknown, node type unspecified
        RdmaDevice efa = m.device("efa_0").orElseThrow();
        assertThat(efa.nodeType()).isEqualTo("7: unspecified");
        assertThat(efa.hwCounters()).containsKey("submitted_cmds").doesNotContainKey("lifespan");
        assertThat(efa.ports().get(0).hwCounters()).containsKey("rdma_read_wr_err");
        assertThat(efa.ports().get(0).linkLayer()).isEqualTo("Unknown");
        // qedr: every counters/ read is EINVAL (no PMA answer): absence, not 17 read errors
        assertThat(m.port("qedr0", 1).orElseThrow().counters()).isEmpty();
        // siw: iWARP, no PCI function, no counters
        assertThat(m.device("siw0").orElseThrow().iwarp()).isTrue();
        assertThat(m.device("siw0").orElseThrow().pciAddress()).isNull();
        assertThat(m.port("bnxt_re0", 1).orElseThrow().netdev()).isEqualTo("ens12f0np0");
        assertThat(m.port("irdma0", 1).orElseThrow().hwCounters()).containsKey("tcpRetransSegs");
        // mlx4 without per-port diagnostic counters: its queue error counters are the device's, its ports have PMA counters only
        RdmaDevice mlx4 = m.device("mlx4_0").orElseThrow();
        assertThat(mlx4.hwCounters()).hasSize(23).containsEntry("rq_num_oos", 57L).containsKeys("num_cqovf", "rq_num_udsdprd")
                .doesNotContainKey("lifespan");
        assertThat(mlx4.ports()).hasSize(2).allSatisfy(p -> {
            assertThat(p.hwCounters()).isEmpty();
            assertThat(p.counters()).containsKeys("symbol_error", "port_xmit_wait", "unicast_xmit_packets");
            assertThat(p.up()).isTrue();
        });
    }

    @Test
    void otherDriversStatisticsByMeaning() {
        HostModel m = HostCollection.standard(CollectorConfig.DEFAULT).collect(Fixtures.open("host-g-drivers"));
        Map<String, Long> bnxt = m.netdev("ens12f0np0").map(NetdevInfo::stats).orElseThrow();
        assertThat(DriverStats.globalPauseFrames(bnxt, Dir.RX)).isEqualTo(bnxt.get("rx_pause_frames"));
        assertThat(DriverStats.pfcPauseFrames(bnxt, Dir.TX, 3)).isEqualTo(bnxt.get("tx_pfc_ena_frames_pri3"));
        assertThat(DriverStats.phyErrors(bnxt)).containsEntry("crc", bnxt.get("rx_fcs_err_frames"))
                .containsEntry("pcs_symbol", bnxt.get("rx_pcs_symbol_err"));
        assertThat(DriverStats.linkDownEvents(bnxt)).isEqualTo(bnxt.get("link_down_events"));
        assertThat(DriverStats.correctedBits(bnxt)).isEqualTo(bnxt.get("rx_corrected_bits"));
        Map<String, Long> ice = m.netdev("ens11f0").map(NetdevInfo::stats).orElseThrow();
        assertThat(DriverStats.globalPauseFrames(ice, Dir.TX)).isEqualTo(ice.get("link_xoff_tx.nic"));
        assertThat(DriverStats.phyErrors(ice)).containsEntry("crc", ice.get("rx_crc_errors.nic"));
        // neither driver proves its PFC or global pause state by which statistics it lists
        assertThat(DriverStats.pfcEnabled("bnxt_en", bnxt)).isEmpty();
        assertThat(DriverStats.globalPauseOn("ice", ice)).isEmpty();
    }

    @Test
    void transportCounterNamesOfEveryDriver() {
        assertThat(TransportCounters.type("req_transport_retries_exceeded")).isEqualTo(TransportCounters.Type.RETRIES_EXCEEDED);
        assertThat(TransportCounters.type("retry_exceeded_err")).isEqualTo(TransportCounters.Type.RETRIES_EXCEEDED);
        assertThat(TransportCounters.type("max_retry_exceeded")).isEqualTo(TransportCounters.Type.RETRIES_EXCEEDED);
        assertThat(TransportCounters.type("to_retransmits")).isEqualTo(TransportCounters.Type.ACK_TIMEOUT);
        assertThat(TransportCounters.type("oos_drop_count")).isEqualTo(TransportCounters.Type.OUT_OF_SEQUENCE);
        assertThat(TransportCounters.type("tcpRetransSegs")).isEqualTo(TransportCounters.Type.RETRANSMITTED_SEGMENTS);
        assertThat(TransportCounters.type("rx_write_requests")).isNull();
    }
}
