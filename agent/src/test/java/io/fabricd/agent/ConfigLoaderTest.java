package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabricd.agent.config.AgentConfig;
import io.fabricd.agent.config.ConfigLoader;
import io.fabricd.agent.config.ListenAddress;
import io.fabricd.collectors.Fixtures;
import io.fabricd.collectors.run.HostCollection;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.diagnosis.run.Diagnosis;
import io.fabricd.model.HostModel;
import io.fabricd.model.probe.ProbeResults;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {

    @Test
    void defaultsWithoutAFile() {
        AgentConfig c = ConfigLoader.load(null);
        assertThat(c.listen()).isEqualTo("0.0.0.0:9530");
        assertThat(c.collection().interval()).isEqualTo(Duration.ofSeconds(10));
        assertThat(c.collection().readTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(c.collectorConfig().deviceSelected("mlx5_0")).isTrue();
    }

    @Test
    void readsEveryKey(@TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("c.yaml");
        Files.writeString(f, """
                listen: 127.0.0.1:9999
                collection:
                  interval: 30s
                  read_timeout: 500ms
                rdma:
                  include_devices: [mlx5_*]
                  exclude_devices: [mlx5_3]
                """);
        AgentConfig c = ConfigLoader.load(f);
        assertThat(ListenAddress.parse(c.listen())).isEqualTo(new ListenAddress("127.0.0.1", 9999));
        assertThat(c.collection().interval()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.collection().readTimeout()).isEqualTo(Duration.ofMillis(500));
        assertThat(c.collectorConfig().deviceSelected("mlx5_3")).isFalse();
        assertThat(c.collectorConfig().deviceSelected("rxe0")).isFalse();
    }

    @Test
    void readsTheDiagnosisSection(@TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("c.yaml");
        Files.writeString(f, """
                diagnosis:
                  disabled_checks: [pcie_degraded]
                  roce: {priority: 4, trust: dscp}
                  link: {expected_rate_gbps: 400}
                  port_errors:
                    symbol_error: 60/h
                    port_xmit_discards: 100
                    link_downed: 0
                  pause_storm: {tx_pause_frames_per_second: 500, rx_pause_time_fraction: 0.25}
                  qp: {max_share: 0.9, err_growth: 5}
                  phy_errors: {crc: 10/m}
                  lane_errors: {min_errors: 50, ratio: 4}
                  transport_errors: {ack_timeout: 5/s, retries_exceeded: 1/h}
                """);
        var d = ConfigLoader.load(f).diagnosis();
        assertThat(d.enabled("pcie_degraded")).isFalse();
        assertThat(d.roce().priority()).isEqualTo(4);
        assertThat(d.link().expectedRateGbps()).isEqualTo(400.0);
        assertThat(d.portErrorThresholds().get("symbol_error").perSecond()).isEqualTo(60.0 / 3600);
        assertThat(d.portErrorThresholds().get("port_xmit_discards").perSecond()).isEqualTo(100.0);
        assertThat(d.portErrorThresholds().get("link_downed").perSecond()).isZero();
        assertThat(d.portErrorThresholds()).containsKey("link_error_recovery"); // defaults kept
        assertThat(d.pauseStorm().rxPauseTimeFraction()).isEqualTo(0.25);
        assertThat(d.pauseStorm().txPauseFramesPerSecond()).isEqualTo(500.0);
        assertThat(d.qp().errGrowth()).isEqualTo(5);
        assertThat(d.qp().maxErr()).isEqualTo(32); // default kept beside the keys given
        assertThat(d.phyErrorThresholds().get("crc").perSecond()).isEqualTo(10.0 / 60);
        assertThat(d.phyErrorThresholds().get("link_down").perSecond()).isZero(); // default kept
        assertThat(d.laneErrors().minErrors()).isEqualTo(50);
        assertThat(d.transportErrorThresholds().get("ack_timeout").perSecond()).isEqualTo(5.0);
        assertThat(d.transportErrorThresholds().get("out_of_sequence").text()).isEqualTo("10/s");
        assertThat(ConfigLoader.load(null).diagnosis().portErrorThresholds().get("symbol_error").text()).isEqualTo("120/h");
    }

    @Test
    void probeChecksAreChecksLikeTheOthers(@TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("c.yaml");
        Files.writeString(f, """
                diagnosis:
                  disabled_checks: [probe_loss, bandwidth_low]
                probe:
                  loss_threshold: 0.05
                  latency_threshold: 2ms
                bandwidth:
                  min_ratio: 0.6
                """);
        AgentConfig c = ConfigLoader.load(f);
        DiagnosisConfig d = c.judging();
        assertThat(d.enabled("probe_loss")).isFalse();
        assertThat(d.enabled("bandwidth_low")).isFalse();
        assertThat(d.enabled("probe_latency")).isTrue();
        // the thresholds stay where users set them, beside the probes, and reach the checks
        assertThat(d.probes().lossThreshold()).isEqualTo(0.05);
        assertThat(d.probes().latencyThresholdSeconds()).isEqualTo(0.002);
        assertThat(d.probes().bandwidthMinRatio()).isEqualTo(0.6);
        // honoured: a peer losing everything is no finding while probe_loss is off
        ProbeResults lossy = new ProbeResults(List.of(new ProbeResults.Window("a:9530", "", "udp", 64, null, 100, 100, 0, false,
                null, null, null, null)), List.of(), List.of());
        HostModel m = HostCollection.standard(c.collectorConfig()).collect(Fixtures.open("host-a-ib"));
        assertThat(Diagnosis.run(m, null, null, lossy, d).findings()).noneMatch(x -> x.check().equals("probe_loss"));
        assertThat(Diagnosis.run(m, null, null, lossy, ConfigLoader.load(null).judging()).findings())
                .anyMatch(x -> x.check().equals("probe_loss"));
        // and the defaults without a file
        assertThat(ConfigLoader.load(null).judging().probes()).isEqualTo(DiagnosisConfig.Probes.DEFAULT);
    }

    @Test
    void rejectsBadDiagnosisValues(@TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("c.yaml");
        Files.writeString(f, "diagnosis:\n  disabled_checks: [pfc_mising]\n");
        assertThatThrownBy(() -> ConfigLoader.load(f)).hasMessageContaining("unknown check 'pfc_mising'");
        Files.writeString(f, "diagnosis:\n  port_errors:\n    symbol_error: lots\n");
        assertThatThrownBy(() -> ConfigLoader.load(f)).hasMessageContaining("'lots' is not a rate").hasMessageContaining("line 3");
        Files.writeString(f, "diagnosis:\n  roce:\n    priority: 9\n");
        assertThatThrownBy(() -> ConfigLoader.load(f)).hasMessageContaining("diagnosis.roce.priority must be 0-7");
        Files.writeString(f, "diagnosis:\n  pause_storm:\n    tx_pause_frame_per_second: 5\n");
        assertThatThrownBy(() -> ConfigLoader.load(f)).hasMessageContaining("unknown key 'tx_pause_frame_per_second'");
        Files.writeString(f, "diagnosis:\n  transport_errors:\n    ack_timeouts: 5/s\n");
        assertThatThrownBy(() -> ConfigLoader.load(f)).hasMessageContaining("diagnosis.transport_errors: unknown type 'ack_timeouts'");
        Files.writeString(f, "diagnosis:\n  phy_errors:\n    fcs: 5/s\n");
        assertThatThrownBy(() -> ConfigLoader.load(f)).hasMessageContaining("diagnosis.phy_errors: unknown type 'fcs'");
        Files.writeString(f, "diagnosis:\n  lane_errors:\n    ratio: 0.5\n");
        assertThatThrownBy(() -> ConfigLoader.load(f)).hasMessageContaining("diagnosis.lane_errors.ratio must be above 1");
    }

    @Test
    void emptyFileIsDefaults(@TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("empty.yaml");
        Files.writeString(f, "");
        assertThat(ConfigLoader.load(f).listen()).isEqualTo("0.0.0.0:9530");
    }

    @Test
    void rejectsBadValues(@TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("c.yaml");
        Files.writeString(f, "collection:\n  interval: 1ms\n");
        assertThatThrownBy(() -> ConfigLoader.load(f)).hasMessageContaining("at least 100ms");
        Files.writeString(f, "listen: [1, 2\n");
        assertThatThrownBy(() -> ConfigLoader.load(f)).hasMessageContaining("config file");
        assertThatThrownBy(() -> ConfigLoader.load(tmp.resolve("absent.yaml"))).hasMessageContaining("does not exist");
        Files.writeString(f, "collection:\n  disabled_collectors: [topology, gpu]\n");
        assertThatThrownBy(() -> ConfigLoader.load(f)).hasMessageContaining("unknown collector 'gpu'")
                .hasMessageContaining("known: dcb, ethtool, gpudirect, host, iommu, lldp, netdev, pcie, qp, rdma, topology, verbs");
    }

    @Test
    void readsTheCollectionCosts(@TempDir Path tmp) throws Exception {
        assertThat(ConfigLoader.load(null).collectorConfig().disabledCollectors()).isEmpty();
        Path f = tmp.resolve("c.yaml");
        Files.writeString(f, """
                collection:
                  max_open_files: 0
                  disabled_collectors: [topology, gpudirect]
                """);
        AgentConfig c = ConfigLoader.load(f); // max_open_files: an older release's setting, accepted
        assertThat(c.collectorConfig().runs("topology")).isFalse();
        assertThat(c.collectorConfig().runs("gpudirect")).isFalse();
        assertThat(c.collectorConfig().runs("rdma")).isTrue();
    }

    @Test
    void durationsAndListenAddresses() {
        assertThat(ConfigLoader.parseDuration("1.5s")).isEqualTo(Duration.ofMillis(1500));
        assertThat(ConfigLoader.parseDuration("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(ConfigLoader.parseDuration("1h")).isEqualTo(Duration.ofHours(1));
        assertThat(ConfigLoader.parseDuration("3")).isEqualTo(Duration.ofSeconds(3));
        assertThat(ConfigLoader.parseDuration("200us")).isEqualTo(Duration.ofNanos(200_000));
        assertThat(ConfigLoader.parseDuration("50µs")).isEqualTo(Duration.ofNanos(50_000));
        assertThat(ConfigLoader.parseDuration("1.5ms")).isEqualTo(Duration.ofNanos(1_500_000));
        assertThatThrownBy(() -> ConfigLoader.parseDuration("5 ns")).hasMessageContaining("not a duration");
        assertThat(ListenAddress.parse(":9530")).isEqualTo(new ListenAddress("0.0.0.0", 9530));
        assertThat(ListenAddress.parse("[::1]:80")).isEqualTo(new ListenAddress("::1", 80));
        assertThatThrownBy(() -> ListenAddress.parse("host")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ListenAddress.parse("host:99999")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void readsTheProbeKubernetesSection(@TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("c.yaml");
        Files.writeString(f, """
                probe:
                  kubernetes:
                    service: fabricd
                    namespace: monitoring
                    port_name: api
                    rack_labels: [example.com/tor]
                    node_refresh: 1m
                    api_server: https://10.0.0.1:6443
                """);
        AgentConfig c = ConfigLoader.load(f);
        assertThat(c.probe().kubernetes().enabled()).isTrue();
        assertThat(c.probe().kubernetes().namespace()).isEqualTo("monitoring");
        assertThat(c.probe().kubernetes().portName()).isEqualTo("api");
        assertThat(c.probe().kubernetes().rackLabels()).containsExactly("example.com/tor");
        assertThat(c.probe().kubernetes().nodeRefresh()).isEqualTo(Duration.ofMinutes(1));
        assertThat(c.probe().kubernetes().apiServer()).isEqualTo("https://10.0.0.1:6443");
        assertThat(ConfigLoader.load(null).probe().kubernetes().enabled()).isFalse();
        Files.writeString(f, "probe: {kubernetes: {service: fabricd, port_name: ''}}\n");
        assertThatThrownBy(() -> ConfigLoader.load(f)).hasMessageContaining("probe.kubernetes");
    }

    /** What a config file says is wrong, as one line (the file's name stripped). */
    private static String error(Path f, String yaml) throws Exception {
        Files.writeString(f, yaml);
        try {
            ConfigLoader.load(f);
        } catch (IllegalArgumentException e) {
            return e.getMessage().replace("config file " + f + ": ", "");
        }
        throw new AssertionError("accepted: " + yaml);
    }

    @Test
    void emptySectionsAreTheDefaults(@TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("c.yaml");
        Files.writeString(f, "collection: ~\nhttp:\nlisten:\nrdma: {include_devices: ~}\ndiagnosis: {roce: ~}\nprobe: ~\n"
                + "bandwidth: {serve: ~, min_ratio: ~}\nnetdev: {all_stats: ~}\n");
        AgentConfig c = ConfigLoader.load(f);
        assertThat(c.collection().interval()).isEqualTo(Duration.ofSeconds(10));
        assertThat(c.http().maxConnections()).isZero(); // what the heap allows (ConnectionLimits)
        assertThat(c.listen()).isEqualTo("0.0.0.0:9530");
        assertThat(c.collectorConfig().deviceSelected("mlx5_0")).isTrue();
        assertThat(c.diagnosis().roce()).isNotNull();
        assertThat(c.diagnosis()).isEqualTo(DiagnosisConfig.DEFAULT);
        assertThat(c.bandwidth().serve()).isTrue();
        assertThat(c).isEqualTo(AgentConfig.defaults());
    }

    @Test
    void everyBadValueNamesItsKeyAndLine(@TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("c.yaml");
        assertThat(error(f, "http:\n  max_header_bytes: lots\n")).isEqualTo("http.max_header_bytes: 'lots' is not a whole number (line 2)");
        assertThat(error(f, "collection:\n  interval: [1]\n")).startsWith("collection.interval: ").contains("(line 2)");
        assertThat(error(f, "netdev:\n  all_stats: maybe\n")).startsWith("netdev.all_stats: ").contains("true or false", "(line 2)");
        assertThat(error(f, "rdma: 3\n")).startsWith("rdma: ").contains("(line 1)");
        // a typo'd key on the line it is on, also when its value is a block on the next lines
        assertThat(error(f, "listen: :9530\ncollection:\n  intervall: 5s\n")).startsWith("unknown key 'intervall' in collection (line 3)");
        assertThat(error(f, "listen: :9530\nhttpp:\n  idle_timeout: 5s\n")).startsWith("unknown key 'httpp' (line 2)");
        assertThat(error(f, "http:\n  idle_timeout: 4294967296ms\n")).contains("http.idle_timeout must be between 100ms and 24h");
        assertThat(error(f, "http:\n  max_connections: 2\n"))
                .isEqualTo("http.max_connections must be 0 (what the heap allows) or between 4 and 1048576, not 2 (line 2)");
        assertThat(error(f, "bandwidth:\n  min_ratio: 80\n")).contains("bandwidth.min_ratio must be above 0 and at most 1");
        assertThat(error(f, "bandwidth:\n  max_duration: 2h\n")).contains("bandwidth.max_duration must be between 1ms and 60m");
        assertThat(error(f, "bandwidth:\n  max_qps: 0\n")).contains("bandwidth.max_qps must be between 1 and 64");
        assertThat(error(f, "bandwidth:\n  interval: 10s\n")).contains("bandwidth.interval must be 0s (off) or at least 1m");
        assertThat(error(f, "bandwidth:\n  serve: perhaps\n")).startsWith("bandwidth.serve: ").contains("true or false");
    }

    @Test
    void aKeyGivenTwiceIsReportedWhereTheValueUsedIs(@TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("c.yaml");
        // the last of two values is the one read: a problem with it is on its line, not the first one's
        assertThat(error(f, "collection:\n  interval: 5s\n  interval: soon\n")).contains(
                "collection.interval: 'soon' is not a duration (like 500ms, 10s, 1m) (line 3)",
                "collection.interval: given twice, on lines 2 and 3 (keep one)");
        assertThat(error(f, "probe:\n  sizes: [64, 128]\n  sizes:\n    - 256\n    - lots\n")).contains(
                "probe.sizes[1]: 'lots' is not a whole number (line 5)", "probe.sizes: given twice, on lines 2 and 3 (keep one)");
        // a section given twice: the second replaces the first, so its keys are not given twice
        assertThat(error(f, "collection:\n  interval: 5s\n  read_timeout: 2s\nlisten: :9530\ncollection:\n  interval: 7s\n"))
                .isEqualTo("collection: given twice, on lines 1 and 5 (keep one)");
        assertThat(error(f, "collection:\n  interval: 5s\ncollection:\n  interval: 7s\n  interval: soon\n")).contains(
                "collection: given twice, on lines 1 and 3", "collection.interval: given twice, on lines 4 and 5",
                "collection.interval: 'soon' is not a duration (like 500ms, 10s, 1m) (line 5)");
    }

    @Test
    void theHttpSectionsIntegersHaveRanges(@TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("c.yaml");
        // four times this overflowed an int: every address's third connection was reset
        assertThat(error(f, "listen: :9530\nhttp:\n  max_connections: 600000000\n"))
                .isEqualTo("http.max_connections must be 0 (what the heap allows) or between 4 and 1048576, not 600000000 (line 3)");
        assertThat(error(f, "http:\n  max_connections: -1\n")).startsWith("http.max_connections must be 0 (what the heap allows) or");
        assertThat(error(f, "http:\n  max_requests: 0\n")).isEqualTo("http.max_requests must be between 1 and 65536, not 0 (line 2)");
        assertThat(error(f, "http:\n  max_requests: 100000\n")).startsWith("http.max_requests must be between 1 and 65536");
        assertThat(error(f, "http:\n  max_connections: 8\n  max_requests: 9\n"))
                .isEqualTo("http.max_requests must be at most http.max_connections (8), not 9 (line 3)");
        assertThat(error(f, "http:\n  max_header_bytes: 2147483647\n"))
                .isEqualTo("http.max_header_bytes must be between 1024 and 1048576, not 2147483647 (line 2)");
        assertThat(error(f, "http:\n  max_header_bytes: 100\n")).startsWith("http.max_header_bytes must be between 1024 and 1048576");
        assertThat(error(f, "http:\n  max_request_line_bytes: 100000\n"))
                .isEqualTo("http.max_request_line_bytes must be between 256 and 65536, not 100000 (line 2)");
        assertThat(error(f, "http:\n  max_connections: 6000000000\n")).startsWith("http.max_connections: ").contains("(line 2)");
        assertThat(error(f, "http:\n  idle_timeout: 50ms\n")).startsWith("http.idle_timeout must be between 100ms and 24h");
        // 0 and the default: what the heap allows; max_requests is then bounded by the connections themselves
        Files.writeString(f, "http:\n  max_connections: 0\n  max_requests: 5000\n");
        assertThat(ConfigLoader.load(f).http().maxConnections()).isZero();
        Files.writeString(f, "http:\n  max_connections: 1048576\n  max_requests: 65536\n  max_header_bytes: 1048576\n"
                + "  max_request_line_bytes: 65536\n");
        assertThat(ConfigLoader.load(f).http().maxHeadBytes()).isEqualTo(1048576 + 65536);
    }

    @Test
    void aFolderAPipeOrAMissingFileIsSaidSo(@TempDir Path tmp) throws Exception {
        assertThatThrownBy(() -> ConfigLoader.load(tmp)).hasMessage("config file " + tmp + " is a folder, not a file");
        assertThatThrownBy(() -> ConfigLoader.load(tmp.resolve("nope.yaml"))).hasMessageEndingWith("does not exist");
        Path fifo = tmp.resolve("fifo");
        assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
        // refused at once: reading it would wait for a writer forever
        assertThatThrownBy(() -> ConfigLoader.load(fifo)).hasMessageContaining("is not a regular file");
    }
}
