package io.fabricd.probes.bandwidth;

import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Severity;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The last bandwidth result per peer, device and direction as {@code fabric_bandwidth_*} families,
 * and the {@code bandwidth_low} finding (warning) for a link that delivered less than
 * {@code minRatio} of its ceiling.
 */
public final class BandwidthReport {
    private static final String[] LABELS = {"peer", "device", "direction"};
    private final Supplier<Collection<BandwidthResult>> results;
    private final double minRatio;

    public BandwidthReport(Supplier<Collection<BandwidthResult>> results, double minRatio) {
        this.results = results;
        this.minRatio = minRatio;
    }

    public BandwidthReport register(PrometheusRegistry registry) {
        GaugeWithCallback.builder().name("fabric_bandwidth_bytes_per_second")
                .help("Data bytes per second the last bandwidth test with a peer moved (RDMA WRITE; direction tx: this host wrote, "
                        + "rx: the peer wrote into this host).")
                .labelNames(LABELS).callback(cb -> each(r -> cb.call(r.bps() / 8, labels(r)))).register(registry);
        GaugeWithCallback.builder().name("fabric_bandwidth_messages_per_second")
                .help("RDMA WRITEs per second of the last bandwidth test with a peer.")
                .labelNames(LABELS).callback(cb -> each(r -> cb.call(r.messageRate(), labels(r)))).register(registry);
        GaugeWithCallback.builder().name("fabric_bandwidth_ceiling_bytes_per_second")
                .help("What the last tested path can carry at most: the lowest of the link after encoding and both NICs' PCIe "
                        + "(limit says which); absent when unknown.")
                .labelNames("peer", "device", "direction", "limit").callback(cb -> each(r -> {
                    if (r.ceilingBps() != null) {
                        cb.call(r.ceilingBps() / 8, r.peer(), r.device(), r.direction(), r.limit());
                    }
                })).register(registry);
        GaugeWithCallback.builder().name("fabric_bandwidth_ratio")
                .help("The last bandwidth test's data rate over its ceiling; absent when the ceiling is unknown.")
                .labelNames(LABELS).callback(cb -> each(r -> {
                    if (r.ratio() != null) {
                        cb.call(r.ratio(), labels(r));
                    }
                })).register(registry);
        GaugeWithCallback.builder().name("fabric_bandwidth_last_test_timestamp_seconds")
                .help("When the last bandwidth test with a peer ended (Unix time).")
                .labelNames(LABELS).callback(cb -> each(r -> cb.call(r.atMillis() / 1000.0, labels(r)))).register(registry);
        return this;
    }

    private void each(Consumer<BandwidthResult> f) {
        results.get().forEach(f);
    }

    private static String[] labels(BandwidthResult r) {
        return new String[] {r.peer(), r.device(), r.direction()};
    }

    /** bandwidth_low for each last result below the share; nothing for one whose ceiling is unknown. */
    public List<Finding> findings() {
        List<Finding> out = new ArrayList<>();
        for (BandwidthResult r : results.get()) {
            Double ratio = r.ratio();
            if (ratio == null || ratio >= minRatio) {
                continue;
            }
            Map<String, Object> subject = new LinkedHashMap<>();
            subject.put("peer", r.peer());
            subject.put("device", r.device());
            subject.put("direction", r.direction());
            Map<String, Object> ev = new LinkedHashMap<>();
            ev.put("bits_per_second", r.bps());
            ev.put("ceiling_bits_per_second", r.ceilingBps());
            ev.put("limit", r.limit());
            ev.put("ratio", ratio);
            ev.put("min_ratio", minRatio);
            ev.put("size", r.size());
            ev.put("qps", r.qps());
            ev.put("seconds", r.nanos() / 1e9);
            ev.put("confirm", "ib_write_bw -d " + r.device() + " -s " + r.size() + " -q " + r.qps() + " -D 5 --report_gbits (and the "
                    + "same without a host on the other end)");
            out.add(new Finding("bandwidth_low", Severity.WARNING, subject,
                    String.format(Locale.ROOT, "%s %s %s: %.1f Gb/s, %.0f%% of the %.1f Gb/s the %s can carry", r.device(),
                            r.direction().equals("tx") ? "to" : "from", r.peer(), r.bps() / 1e9, ratio * 100, r.ceilingBps() / 1e9,
                            r.limit().replace('_', ' ')),
                    ev, "Compare with ib_write_bw on the same ports. Below the ceiling: check the link's error and pause counters "
                            + "(port_errors, pause_storm), PFC and ECN on the priority (pfc_missing), the NICs' PCIe link "
                            + "(pcie_degraded) and NUMA placement of the test (numa_misaffinity); a busy link shares its bandwidth."));
        }
        return out;
    }
}
