package io.fabricd.exporters;

import io.fabricd.collectors.model.HostModel;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

/**
 * fabricd's families as a client_java {@link MultiCollector}. The snapshots are built once per
 * collection ({@link #update}); a scrape only hands out the latest immutable result and never
 * touches the host.
 */
public final class FabricMetrics implements MultiCollector {
    private volatile MetricSnapshots latest = new MetricSnapshots();

    /** Replaces the served families with those of a new host model. */
    public void update(HostModel model) {
        latest = build(model);
    }

    public static MetricSnapshots build(HostModel model) {
        Families f = new Families();
        PortFamilies.declare(f);
        PortFamilies.add(f, model);
        return new MetricSnapshots(f.build());
    }

    @Override
    public MetricSnapshots collect() {
        return latest;
    }
}
