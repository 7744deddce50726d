package io.fabricd.probes.bandwidth;

import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.Collection;
import java.util.function.Consumer;
import java.util.function.Supplier;

/** The last bandwidth result per peer, device and direction as the {@code fabric_bandwidth_*} families. */
public final class BandwidthMetrics {
    private static final String[] LABELS = {"peer", "device", "direction"};

    private BandwidthMetrics() {
    }

    /** Registers the families; each scrape reads {@code results} again. */
    public static void register(PrometheusRegistry registry, Supplier<Collection<BandwidthResult>> results) {
        Consumer<Consumer<BandwidthResult>> each = f -> results.get().forEach(f);
        GaugeWithCallback.builder().name("fabric_bandwidth_bytes_per_second")
                .help("Data bytes per second the last bandwidth test with a peer moved (RDMA WRITE; direction tx: this host wrote, "
                        + "rx: the peer wrote into this host).")
                .labelNames(LABELS).callback(cb -> each.accept(r -> cb.call(r.bps() / 8, labels(r)))).register(registry);
        GaugeWithCallback.builder().name("fabric_bandwidth_messages_per_second")
                .help("RDMA WRITEs per second of the last bandwidth test with a peer.")
                .labelNames(LABELS).callback(cb -> each.accept(r -> cb.call(r.messageRate(), labels(r)))).register(registry);
        GaugeWithCallback.builder().name("fabric_bandwidth_ceiling_bytes_per_second")
                .help("What the last tested path can carry at most: the lowest of the link after encoding and both NICs' PCIe "
                        + "(limit says which); absent when unknown.")
                .labelNames("peer", "device", "direction", "limit").callback(cb -> each.accept(r -> {
                    if (r.ceilingBps() != null) {
                        cb.call(r.ceilingBps() / 8, r.peer(), r.device(), r.direction(), r.limit());
                    }
                })).register(registry);
        GaugeWithCallback.builder().name("fabric_bandwidth_ratio")
                .help("The last bandwidth test's data rate over its ceiling; absent when the ceiling is unknown.")
                .labelNames(LABELS).callback(cb -> each.accept(r -> {
                    if (r.ratio() != null) {
                        cb.call(r.ratio(), labels(r));
                    }
                })).register(registry);
        GaugeWithCallback.builder().name("fabric_bandwidth_last_test_timestamp_seconds")
                .help("When the last bandwidth test with a peer ended (Unix time).")
                .labelNames(LABELS).callback(cb -> each.accept(r -> cb.call(r.atMillis() / 1000.0, labels(r)))).register(registry);
    }

    private static String[] labels(BandwidthResult r) {
        return new String[] {r.peer(), r.device(), r.direction()};
    }
}
