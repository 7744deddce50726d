package io.fabricd.probes.mesh;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.probes.ProbeResult;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.Arrays;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * The pingmesh's series budget (docs/probes.md, "Series per host"): at most 12 series per peer,
 * size and transport by default, the histograms per peer rack; per-peer histograms only when asked.
 * Counted as a scrape's text has them (a classic histogram is its buckets, +Inf, _sum and _count),
 * for a host probing 64 peers in 8 racks with two sizes.
 */
class ProbeCardinalityTest {
    static final int PEERS = 64;
    static final int RACKS = 8;
    static final int[] SIZES = {64, 4096};
    /** A classic histogram data point's series: 20 buckets, +Inf, _sum, _count. */
    static final int HISTOGRAM = 23;

    static MetricSnapshots scrape(boolean perPeer) {
        PrometheusRegistry registry = new PrometheusRegistry();
        ProbeMetrics m = new ProbeMetrics(registry, null, perPeer);
        SplittableRandom rnd = new SplittableRandom(7);
        for (int p = 0; p < PEERS; p++) {
            for (int size : SIZES) {
                long[] rtts = new long[100];
                Arrays.setAll(rtts, i -> 5_000 + rnd.nextInt(20_000));
                m.record(new ProbeResult("peer-" + p + ":9530", "udp", null, null, size, 100, 100, 0, 0, rtts, rtts, rtts, null, 0, 0, false), "r" + p % RACKS);
            }
        }
        return registry.scrape();
    }

    static long series(MetricSnapshots snaps, Predicate<DataPointSnapshot> which) {
        long n = 0;
        for (MetricSnapshot s : snaps) {
            for (DataPointSnapshot d : s.getDataPoints()) {
                if (which.test(d)) {
                    n += d instanceof HistogramSnapshot.HistogramDataPointSnapshot h ? h.getClassicBuckets().size() + 2 : 1;
                }
            }
        }
        return n;
    }

    static Predicate<DataPointSnapshot> peer(String p) {
        return d -> p.equals(d.getLabels().get("peer"));
    }

    @Test
    void atMostTwelveSeriesPerPeerAndSizeByDefault() {
        MetricSnapshots snaps = scrape(false);
        long perPeer = series(snaps, peer("peer-17:9530")) / SIZES.length;
        assertThat(perPeer).as("series per peer and size").isLessThanOrEqualTo(12).isEqualTo(7);
        long all = series(snaps, d -> true);
        long racks = 2L * HISTOGRAM * RACKS * SIZES.length;
        assertThat(all).isEqualTo(PEERS * SIZES.length * perPeer + racks);
        System.out.println("probe series at " + PEERS + " peers, " + SIZES.length + " sizes, " + RACKS + " racks: " + all + " ("
                + perPeer + " per peer and size, " + racks + " in the rack histograms)");
    }

    @Test
    void perPeerHistogramsAreOptIn() {
        assertThat(series(scrape(true), peer("peer-17:9530")) / SIZES.length).isEqualTo(7 + 2 * HISTOGRAM);
    }

    @Test
    void theRecentQuantilesAreTheRoundTripsOrderStatistics() {
        PrometheusRegistry registry = new PrometheusRegistry();
        ProbeMetrics m = new ProbeMetrics(registry, null, false);
        long[] rtts = new long[1000];
        Arrays.setAll(rtts, i -> (i + 1) * 1000L); // 1 us .. 1000 us; the ring keeps the last 256: 745 .. 1000 us
        m.record(new ProbeResult("p:9530", "udp", null, null, 64, 1000, 1000, 0, 0, rtts, rtts, rtts, null, 0, 0, false), "r");
        GaugeSnapshot recent = recent(registry.scrape());
        assertThat(recent.getDataPoints()).hasSize(2);
        for (GaugeSnapshot.GaugeDataPointSnapshot d : recent.getDataPoints()) {
            assertThat(d.getLabels().get("peer")).isEqualTo("p:9530");
            assertThat(d.getValue()).isEqualTo(d.getLabels().get("quantile").equals("0.5") ? 872e-6 : 998e-6);
        }
        m.retain(Set.of());
        assertThat(recent(registry.scrape()).getDataPoints()).isEmpty();
    }

    static GaugeSnapshot recent(MetricSnapshots snaps) {
        for (MetricSnapshot s : snaps) {
            if (s.getMetadata().getName().equals("fabric_probe_rtt_recent_seconds")) {
                return (GaugeSnapshot) s;
            }
        }
        throw new AssertionError("no fabric_probe_rtt_recent_seconds");
    }
}
