package io.fabricd.exporters;

import io.fabricd.model.metrics.TopologyMetrics;
import io.fabricd.model.topology.Placement;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * {@code fabric_topology_info}: where this host sits, one series whose labels are empty where the
 * placement says nothing (all of them when no source places the host). Asked at every scrape: the
 * placement follows its file and the Node's labels between collections.
 */
public final class PlacementMetrics implements MultiCollector {
    private final Supplier<Optional<Placement>> placement;

    public PlacementMetrics(Supplier<Optional<Placement>> placement) {
        this.placement = placement;
    }

    /** The family of {@code placement}. */
    public static MetricSnapshots snapshots(Optional<Placement> placement) {
        Families f = new Families();
        Placement p = placement.orElse(null);
        f.add(TopologyMetrics.PLACEMENT_INFO, 1, p == null ? "" : p.at(0), p == null ? "" : p.at(1), p == null ? "" : p.at(2),
                p == null ? "" : p.accelerator(), p == null ? "" : p.source().wireName());
        return f.build();
    }

    @Override
    public MetricSnapshots collect() {
        return snapshots(placement.get());
    }
}
