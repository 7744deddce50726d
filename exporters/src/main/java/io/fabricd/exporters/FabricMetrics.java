package io.fabricd.exporters;

import io.fabricd.collectors.model.HostModel;
import io.fabricd.diagnosis.Finding;
import java.util.List;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

/**
 * fabricd's families as a client_java {@link MultiCollector}. The snapshots are built once per
 * collection ({@link #update}); a scrape only hands out the latest immutable result and never
 * touches the host.
 */
public final class FabricMetrics implements MultiCollector {
    private volatile Served served = new Served(new MetricSnapshots());
    private final boolean allNetdevStats;

    public FabricMetrics() {
        this(false);
    }

    /** @param allNetdevStats also export every ethtool statistic as fabric_netdev_stat_total (opt-in: cardinality) */
    public FabricMetrics(boolean allNetdevStats) {
        this.allNetdevStats = allNetdevStats;
    }

    /** Replaces the served families with those of a new host model. */
    public void update(HostModel model) {
        update(model, List.of());
    }

    /** Replaces the served families with those of a new host model and its open findings. */
    public void update(HostModel model, List<Finding> findings) {
        served = new Served(build(model, allNetdevStats, findings));
    }

    /**
     * The families served now, their names, and their renderings per exposition format, published
     * together (one volatile write): a scrape racing an update uses one set, never a mix.
     */
    public Served served() {
        return served;
    }

    /** One collection's families and their renderings, each made on the first scrape that needs it. */
    public static final class Served {
        private final MetricSnapshots snapshots;
        private final java.util.Set<String> names;
        private final java.util.concurrent.ConcurrentHashMap<String, byte[]> rendered = new java.util.concurrent.ConcurrentHashMap<>();

        Served(MetricSnapshots snapshots) {
            this.snapshots = snapshots;
            java.util.Set<String> n = new java.util.HashSet<>();
            snapshots.forEach(m -> n.add(m.getMetadata().getPrometheusName()));
            this.names = java.util.Set.copyOf(n);
        }

        /** Prometheus names (counters without _total) of these families. */
        public java.util.Set<String> names() {
            return names;
        }

        /** These families rendered by {@code render}, cached under {@code format}. */
        public byte[] rendered(String format, java.util.function.Function<MetricSnapshots, byte[]> render) {
            return rendered.computeIfAbsent(format, k -> render.apply(snapshots));
        }
    }

    public static MetricSnapshots build(HostModel model) {
        return build(model, false, List.of());
    }

    public static MetricSnapshots build(HostModel model, boolean allNetdevStats) {
        return build(model, allNetdevStats, List.of());
    }

    public static MetricSnapshots build(HostModel model, boolean allNetdevStats, List<Finding> findings) {
        Families f = new Families();
        PortFamilies.declare(f);
        HostFamilies.declare(f);
        FindingFamilies.declare(f);
        PortFamilies.add(f, model);
        HostFamilies.add(f, model, allNetdevStats);
        FindingFamilies.add(f, findings);
        return new MetricSnapshots(f.build());
    }

    @Override
    public MetricSnapshots collect() {
        return served.snapshots;
    }
}
