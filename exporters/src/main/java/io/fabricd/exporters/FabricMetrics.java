package io.fabricd.exporters;

import io.fabricd.model.HostModel;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.NotJudged;
import io.fabricd.diagnosis.inventory.Inventory;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.List;

/**
 * fabricd's families as a client_java {@link MultiCollector}. The families are built once per
 * collection ({@link #update}); a scrape only hands out the latest immutable snapshots and never
 * touches the host.
 */
public final class FabricMetrics implements MultiCollector {
    private volatile MetricSnapshots latest = new MetricSnapshots(List.of());
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
        update(model, findings, List.of(), null);
    }

    /** ... and what the checks could not judge, and the host's expected inventory (null: none kept). */
    public synchronized void update(HostModel model, List<Finding> findings, List<NotJudged> notJudged, Inventory inventory) {
        latest = build(new Families(), model, allNetdevStats, findings, notJudged, inventory);
    }

    public static MetricSnapshots build(HostModel model) {
        return build(model, false, List.of());
    }

    public static MetricSnapshots build(HostModel model, boolean allNetdevStats, List<Finding> findings) {
        return build(new Families(), model, allNetdevStats, findings, List.of(), null);
    }

    /** ... with what the checks could not judge, and the host's expected inventory. */
    public static MetricSnapshots build(HostModel model, boolean allNetdevStats, List<Finding> findings, List<NotJudged> notJudged,
                                        Inventory inventory) {
        return build(new Families(), model, allNetdevStats, findings, notJudged, inventory);
    }

    private static MetricSnapshots build(Families f, HostModel model, boolean allNetdevStats, List<Finding> findings,
                                         List<NotJudged> notJudged, Inventory inventory) {
        PortFamilies.add(f, model);
        HostFamilies.add(f, model, allNetdevStats);
        PcieFamilies.add(f, model);
        NeighborFamilies.add(f, model);
        FindingFamilies.add(f, findings, notJudged);
        InventoryFamilies.add(f, model, inventory);
        ConfigFamilies.add(f, model);
        return f.build();
    }

    /** A host model's families as Prometheus text 0.0.4 (the {@code fabricd metrics} CLI). */
    public static byte[] text(HostModel model, boolean allNetdevStats, List<Finding> findings) {
        return text(model, allNetdevStats, findings, List.of(), null);
    }

    /** ... with what the checks could not judge and the host's expected inventory. */
    public static byte[] text(HostModel model, boolean allNetdevStats, List<Finding> findings, List<NotJudged> notJudged,
                              Inventory inventory) {
        return Exposition.render(build(model, allNetdevStats, findings, notJudged, inventory), null).body();
    }

    @Override
    public MetricSnapshots collect() {
        return latest;
    }
}
