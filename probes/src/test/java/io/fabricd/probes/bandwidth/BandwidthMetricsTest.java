package io.fabricd.probes.bandwidth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

class BandwidthMetricsTest {
    private final List<BandwidthResult> results = new ArrayList<>();

    private static BandwidthResult result(String peer, double gbps, Double ceilingGbps, String limit) {
        long nanos = 2_000_000_000L;
        long bytes = Math.round(gbps * 1e9 / 8 * 2);
        return new BandwidthResult(peer, "mlx5_0", "mlx5_1", "tx", 65536, 1, bytes, bytes / 65536, nanos,
                ceilingGbps == null ? null : ceilingGbps * 1e9, limit, 1_796_000_000_000L);
    }

    @Test
    void familiesCarryTheLastResultPerPeer() {
        results.add(result("node-b", 61.0, 97.0, "local_pcie"));
        results.add(result("node-d", 0.3, null, "unknown"));
        PrometheusRegistry r = new PrometheusRegistry();
        BandwidthMetrics.register(r, () -> results);
        MetricSnapshots snap = r.scrape();
        assertThat(points(snap, "fabric_bandwidth_bytes_per_second")).containsEntry("mlx5_0 tx node-b", 61e9 / 8)
                .containsEntry("mlx5_0 tx node-d", 0.3e9 / 8);
        assertThat(points(snap, "fabric_bandwidth_ceiling_bytes_per_second")).containsOnly(entry("mlx5_0 tx local_pcie node-b", 97e9 / 8));
        assertThat(points(snap, "fabric_bandwidth_ratio")).containsOnlyKeys("mlx5_0 tx node-b");
        assertThat(points(snap, "fabric_bandwidth_last_test_timestamp_seconds")).containsEntry("mlx5_0 tx node-d", 1.796e9);
        assertThat(points(snap, "fabric_bandwidth_messages_per_second")).containsKeys("mlx5_0 tx node-b", "mlx5_0 tx node-d");
    }

    @Test
    void whatTheCheckJudgesIsWhatWasMeasured() {
        var m = result("node-b", 61.0, 97.0, "link").measured();
        assertThat(m.bitsPerSecond()).isEqualTo(61e9, Assertions.within(1.0));
        assertThat(m.ratio()).isBetween(0.628, 0.630);
        assertThat(m.seconds()).isEqualTo(2.0);
        assertThat(m.direction()).isEqualTo("tx");
    }

    /** A family's points: label values (in label-name order) joined by spaces, to the value. */
    private static Map<String, Double> points(MetricSnapshots snap, String name) {
        Map<String, Double> out = new TreeMap<>();
        for (MetricSnapshot m : snap) {
            if (m.getMetadata().getName().equals(name)) {
                for (DataPointSnapshot p : m.getDataPoints()) {
                    List<String> v = new ArrayList<>();
                    p.getLabels().forEach(l -> v.add(l.getValue()));
                    out.put(String.join(" ", v), ((GaugeSnapshot.GaugeDataPointSnapshot) p).getValue());
                }
            }
        }
        return out;
    }
}
