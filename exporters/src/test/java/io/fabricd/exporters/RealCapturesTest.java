package io.fabricd.exporters;

import static io.fabricd.testing.PromText.s;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.collectors.CollectorConfig;
import io.fabricd.collectors.Fixtures;
import io.fabricd.collectors.run.HostCollection;
import io.fabricd.collectors.source.SnapshotHostSource;
import io.fabricd.diagnosis.run.Diagnosis;
import io.fabricd.model.HostModel;
import io.fabricd.model.RdmaPort;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Severity;
import io.fabricd.testing.PromText;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * fabricd on the real captures of collectors/src/test/fixtures/real (its README says where each
 * came from): what the metrics and the checks must make of data that real hosts produced.
 */
class RealCapturesTest {
    private static final Instant T0 = Instant.parse("2026-11-29T12:00:00Z");
    private static final Path CAPTURES = Fixtures.dir().resolve("real/captures");

    private static HostModel model(Path root, Instant at) {
        return new HostCollection(HostCollection.defaultCollectors(), CollectorConfig.DEFAULT, Clock.fixed(at, ZoneOffset.UTC))
                .collect(SnapshotHostSource.open(root));
    }

    private static HostModel model(Path root) {
        return model(root, T0);
    }

    private static Map<String, Double> metrics(HostModel m) {
        return PromText.parse(new String(Exposition.render(FabricMetrics.build(m, false, List.of()), null).body(), StandardCharsets.UTF_8));
    }

    private static List<Finding> findings(HostModel m, HostModel previous, String check) {
        return Diagnosis.run(m, previous).findings().stream().filter(f -> f.check().equals(check)).toList();
    }

    private static List<Finding> findings(HostModel m, String check) {
        return findings(m, null, check);
    }

    private static String errors(HostModel m, String collector) {
        return m.collector(collector).orElseThrow().errors().toString();
    }

    // 1. counter widths

    @Test
    void dataCountersAboveThirtyTwoBitsWithoutUnicastFilesAreNotSaturated(@TempDir Path tmp) {
        HostModel m = model(Fixtures.procfs(tmp));
        for (String dev : new String[] {"hfi1_0", "mlx4_0"}) {
            RdmaPort p = m.port(dev, 1).orElseThrow();
            assertThat(p.counters()).doesNotContainKey("unicast_xmit_packets");
            assertThat(Long.compareUnsigned(p.dataWords(true), 0xffffffffL)).as(dev).isPositive();
            assertThat(p.saturated()).as(dev).isEmpty();
        }
        assertThat(findings(m, "counter_saturated")).isEmpty();
        assertThat(metrics(m)).containsEntry(s("fabric_port_pma_saturated", "device", "hfi1_0", "port", "1", "counter", "port_xmit_data"), 0.0);
    }

    @Test
    void aCounterExactlyAtItsWidthsMaximumIsSaturated(@TempDir Path tmp) {
        // node_exporter's mlx4: port_xmit_wait 4294967295 (32-bit); gpud's H100: link_downed 255, excessive_buffer_overrun_errors 15
        // mlx4's pinned port_xmit_wait counts congestion, not errors: flagged, exported, and a finding that says congestion
        HostModel mlx4 = model(Fixtures.nodeExporter(tmp));
        assertThat(mlx4.port("mlx4_0", 1).orElseThrow().saturated()).contains("port_xmit_wait");
        assertThat(metrics(mlx4)).containsEntry(s("fabric_port_pma_saturated", "device", "mlx4_0", "port", "1", "counter",
                "port_xmit_wait"), 1.0);
        assertThat(findings(mlx4, "counter_saturated")).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.WARNING);
            assertThat(f.summary()).contains("new congestion is invisible").doesNotContain("errors are invisible");
        });
        HostModel h100 = model(Fixtures.dir().resolve("real/gpud-h100-mlx5_1"));
        assertThat(h100.port("mlx5_1", 1).orElseThrow().saturated()).containsExactly("excessive_buffer_overrun_errors", "link_downed");
        assertThat(findings(h100, "counter_saturated")).singleElement()
                .satisfies(f -> assertThat(f.severity()).isEqualTo(Severity.WARNING));
    }

    // 2. counters_ext, 10. absent identity files, a driver without PMA

    @Test
    void countersExtAreReadAndAbsentIdentityIsNoError(@TempDir Path tmp) {
        HostModel m = model(Fixtures.nodeExporter(tmp));
        for (int port : new int[] {1, 2}) {
            assertThat(m.port("mlx4_0", port).orElseThrow().countersExt()).hasSize(8)
                    .containsEntry("port_xmit_data_64", 3733440L).containsEntry("port_unicast_rcv_packets", 61148L);
        }
        // mlx4_0 and i40iw0 have no node_guid or node_type; i40iw0's PMA answers "N/A (no PMA)" everywhere
        assertThat(errors(m, "rdma")).isEqualTo("[]");
        assertThat(m.port("i40iw0", 1).orElseThrow().counters()).isEmpty();
        Map<String, Double> v = metrics(m);
        assertThat(v).containsEntry(s("fabric_port_pma_total", "device", "mlx4_0", "port", "2", "counter", "port_rcv_data_64"), 4631917.0);
        // the curated family takes the 64-bit counter (port 2's 32-bit port_rcv_data reads 0)
        assertThat(v).containsEntry(s("fabric_port_receive_bytes_total", "device", "mlx4_0", "port", "2"), 4631917.0 * 4);
        assertThat(v.keySet()).anyMatch(k -> k.startsWith("fabric_device_info{") && k.contains("board_id=\"SM_1141000001000\""));
    }

    // 3. unknown is not absent; the driver's statistics as evidence

    @Test
    void aShellCaptureWithoutDcbClaimsNothingAboutPfc() {
        HostModel m = model(Fixtures.host("real-softroce-6.1"));
        assertThat(m.netdevs()).isNotEmpty().allSatisfy(n -> assertThat(n.dcb()).isNull());
        assertThat(metrics(m).keySet()).noneMatch(k -> k.startsWith("fabric_dcb_supported") || k.startsWith("fabric_pfc_enabled"));
        assertThat(findings(m, "pfc_missing")).isEmpty();
    }

    /** host-b-roce's RoCE port with the real mlx5 statistics in place of its own, and neither DCB nor pause parameters. */
    private static Path mlx5Capture(Path dest, String statistics) throws IOException {
        Path b = Fixtures.copy("host-b-roce", dest);
        Files.writeString(b.resolve("fabricd/ethtool/ens1f0np0.txt"), statistics);
        Files.delete(b.resolve("fabricd/dcb/ens1f0np0.json"));
        Files.delete(b.resolve("fabricd/ethtool/ens1f0np0.pause.json"));
        return b;
    }

    @Test
    void realMlx5StatisticsProvePfcOffAndNoGlobalPause(@TempDir Path tmp) throws IOException {
        HostModel m = model(mlx5Capture(tmp.resolve("b"), Files.readString(CAPTURES.resolve("mlx5-100g-p1.ethtool-S.txt"))));
        assertThat(findings(m, "pfc_missing")).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
            assertThat(f.summary()).contains("PFC is off on every priority of ens1f0np0");
            assertThat(f.evidence().text("pfc_source")).startsWith("ethtool -S: mlx5_core");
        });
        assertThat(findings(m, "global_pause_with_pfc")).isEmpty();
        Map<String, Double> v = metrics(m);
        assertThat(v).containsEntry(s("fabric_pfc_enabled", "netdev", "ens1f0np0", "priority", "3"), 0.0);
        assertThat(v).containsEntry(s("fabric_global_pause_enabled", "netdev", "ens1f0np0", "direction", "tx"), 0.0);
        assertThat(v.keySet()).noneMatch(k -> k.startsWith("fabric_dcb_supported"));
        // 4. pause control frames; no global pause statistics on this port
        assertThat(v).containsEntry(s("fabric_netdev_pause_control_frames_total", "netdev", "ens1f0np0", "direction", "tx"), 2.0);
        assertThat(v.keySet()).noneMatch(k -> k.startsWith("fabric_global_pause_frames_total"));
        // 5. physical-layer errors as curated families
        assertThat(v).containsEntry(s("fabric_netdev_phy_errors_total", "netdev", "ens1f0np0", "type", "crc"), 386.0);
        assertThat(v).containsEntry(s("fabric_netdev_phy_errors_total", "netdev", "ens1f0np0", "type", "symbol"), 386.0);
        assertThat(v).containsEntry(s("fabric_netdev_phy_lane_errors_total", "netdev", "ens1f0np0", "lane", "3"), 17722623.0);
        assertThat(v).containsEntry(s("fabric_netdev_fec_corrected_total", "netdev", "ens1f0np0"), 17750739.0);
        assertThat(v).containsEntry(s("fabric_netdev_link_down_events_total", "netdev", "ens1f0np0"), 0.0);
        assertThat(v).containsEntry(s("fabric_netdev_priority_buffer_discards_total", "netdev", "ens1f0np0", "priority", "0"), 0.0);
    }

    @Test
    void oneLaneFarWorseThanItsSiblingsIsABadLane(@TempDir Path tmp) throws IOException {
        String capture = Files.readString(CAPTURES.resolve("mlx5-100g-p1.ethtool-S.txt"));
        HostModel before = model(mlx5Capture(tmp.resolve("a"), capture), T0);
        // one collection: the totals since the driver loaded, as info: the bad lane, and the PHY error totals
        List<Finding> once = findings(before, "port_errors_rising");
        assertThat(once).hasSize(2).allSatisfy(f -> assertThat(f.severity()).isEqualTo(Severity.INFO));
        assertThat(once).filteredOn(f -> f.evidence().has("lane")).singleElement().satisfies(f -> {
            assertThat(f.evidence().number("lane")).isEqualTo(3);
            assertThat(f.summary()).contains("lane 3 of ens1f0np0 has 17722623 receive errors against at most 28116");
        });
        assertThat(once).filteredOn(f -> f.evidence().has("totals")).singleElement()
                .satisfies(f -> assertThat(f.summary()).contains("ens1f0np0 crc errors 386"));
        // a minute later lane 3 took 50 000 more errors, lane 0 two, and CRC errors rose: a warning each
        String later = capture.replace("rx_err_lane_3_phy: 17722623", "rx_err_lane_3_phy: 17772623")
                .replace("rx_err_lane_0_phy: 28116", "rx_err_lane_0_phy: 28118")
                .replace("rx_crc_errors_phy: 386", "rx_crc_errors_phy: 486");
        HostModel after = model(mlx5Capture(tmp.resolve("b"), later), T0.plusSeconds(60));
        List<Finding> f = findings(after, before, "port_errors_rising");
        assertThat(f).extracting(Finding::severity).containsOnly(Severity.WARNING);
        assertThat(f).extracting(Finding::summary).anyMatch(x -> x.contains("lane 3 of ens1f0np0 has 50000 receive errors"))
                .anyMatch(x -> x.contains("ens1f0np0 crc errors +100"));
    }

    // 6. transport failures

    @Test
    void realTransportCountersAreTotalsOnceAndRatesWithHistory(@TempDir Path tmp) throws IOException {
        HostModel once = model(Fixtures.procfs(tmp.resolve("a")), T0);
        assertThat(findings(once, "transport_errors")).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.INFO);
            assertThat(f.subject().device()).isEqualTo("mlx5_0");
            assertThat(f.summary()).contains("local_ack_timeout_err 131", "req_cqe_error 3481", "resp_cqe_error 8109",
                    "duplicate_request 41", "out_of_sequence 1");
        });
        assertThat(metrics(once)).containsEntry(s("fabric_port_transport_errors_total", "device", "mlx5_0", "port", "1",
                "type", "ack_timeout", "counter", "local_ack_timeout_err"), 131.0);
        Path b = Fixtures.procfs(tmp.resolve("b"));
        Files.writeString(b.resolve("sys/class/infiniband/mlx5_0/ports/1/hw_counters/local_ack_timeout_err"), "731\n");
        HostModel later = model(b, T0.plusSeconds(60));
        assertThat(findings(later, once, "transport_errors")).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.WARNING);
            assertThat(f.summary()).contains("local_ack_timeout_err +600 in 60 s");
        });
    }

    // 7. severity from what is known; texts that do not contradict themselves

    @Test
    void roceLinksDisabledWithUnknownNetdevsAreWarningsNotCritical() {
        // two dual-port ConnectX-6 Dx cards (system image GUIDs): mlx5_1 (up) and mlx5_2, mlx5_7 and mlx5_8. The first
        // function mlx5_7 answers to mlx5_1; the second functions to no up second function: unused, not expected
        HostModel m = model(Fixtures.dir().resolve("real/h100-some-down"));
        assertThat(findings(m, "link_down")).extracting(f -> f.subject().device() + " " + f.severity())
                .containsExactlyInAnyOrder("mlx5_2 INFO", "mlx5_7 WARNING", "mlx5_8 INFO");
        assertThat(findings(m, "link_down")).filteredOn(f -> f.severity() == Severity.WARNING).allSatisfy(f ->
                assertThat(f.summary()).contains("is DOWN, physical state Disabled", "not known"));
        assertThat(Diagnosis.run(m, null).hasAtLeast(Severity.CRITICAL)).isFalse();
    }

    @Test
    void aPhysicalStateThatContradictsActiveIsNamedByItsId(@TempDir Path tmp) {
        HostModel m = model(Fixtures.procfs(tmp));
        assertThat(findings(m, "link_down")).singleElement().satisfies(f -> {
            assertThat(f.subject().device()).isEqualTo("mlx5_0");
            assertThat(f.severity()).isEqualTo(Severity.WARNING);
            assertThat(f.summary()).contains("is ACTIVE but its physical state is PortConfigurationTraining (sysfs '4: ACTIVE')")
                    .doesNotContain("ACTIVE / ACTIVE");
        });
    }

    // 8. MTU from verbs alone

    @Test
    void verbsActiveBelowMaxIsAnMtuFindingWithoutTheNetdevMtu(@TempDir Path tmp) throws IOException {
        Path c = Fixtures.copy("host-c-rxe", tmp.resolve("c"));
        Files.createDirectories(c.resolve("fabricd/verbs"));
        Files.copy(CAPTURES.resolve("rxe0.ibv_devinfo.txt"), c.resolve("fabricd/verbs/rxe0.ibv_devinfo.txt"));
        Files.delete(c.resolve("sys/devices/pci0000:00/0000:00:03.0/virtio0/net/ens3/mtu"));
        HostModel m = model(c);
        assertThat(m.portAttrs("rxe0", 1).orElseThrow().mtuSource()).isEqualTo("verbs");
        assertThat(findings(m, "mtu_mismatch")).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.WARNING);
            assertThat(f.evidence().number("active_mtu")).isEqualTo(1024);
            assertThat(f.evidence().number("max_mtu")).isEqualTo(4096);
            assertThat(f.evidence().number("netdev_mtu_below")).isEqualTo(2128);
            assertThat(f.evidence().number("netdev_mtu_needed")).isEqualTo(4176);
            assertThat(f.summary()).contains("the MTU of ens3 is below 2128");
        });
    }
}
