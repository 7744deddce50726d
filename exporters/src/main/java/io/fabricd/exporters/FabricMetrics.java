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
    private volatile MetricSnapshots latest = new MetricSnapshots();
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
        latest = build(model, allNetdevStats, findings);
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
        return latest;
    }
}
