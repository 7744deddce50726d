package io.fabricd.exporters;

import io.fabricd.collectors.model.HostModel;
import io.fabricd.diagnosis.Finding;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.List;

/**
 * fabricd's families as a client_java {@link MultiCollector}. The families are built once per
 * collection ({@link #update}); a scrape only hands out the latest immutable result and never
 * touches the host. A whole scrape renders them directly ({@link Served#rendered}); client_java
 * snapshots of them are made only when the registry is asked for them ({@link #collect}: a
 * {@code name[]} filter).
 */
public final class FabricMetrics implements MultiCollector {
    private volatile Served served = new Served(new Families().build());
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
        served = new Served(table(model, allNetdevStats, findings));
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
        private final FamilyTable table;
        private final java.util.Set<String> names;
        private final List<String> nameList;
        private final java.util.concurrent.ConcurrentHashMap<String, byte[]> rendered = new java.util.concurrent.ConcurrentHashMap<>();

        Served(FamilyTable table) {
            this.table = table;
            this.names = table.names();
            this.nameList = List.copyOf(names);
        }

        /** Prometheus names (counters without _total) of these families. */
        public java.util.Set<String> names() {
            return names;
        }

        /** These families as client_java snapshots (made on first use). */
        public MetricSnapshots snapshots() {
            return table.snapshots();
        }

        /**
         * These families in Prometheus text 0.0.4 ({@code openMetrics} false) or OpenMetrics 1.0
         * without its {@code # EOF}, rendered directly from the table, cached under {@code format}.
         */
        public byte[] rendered(String format, boolean openMetrics) {
            return rendered.computeIfAbsent(format, k -> table.render(openMetrics));
        }

        /** These families rendered by {@code render} from their snapshots, cached under {@code format} (other formats, escapings). */
        public byte[] rendered(String format, java.util.function.Function<MetricSnapshots, byte[]> render) {
            return rendered.computeIfAbsent(format, k -> render.apply(table.snapshots()));
        }
    }

    public static MetricSnapshots build(HostModel model) {
        return build(model, false, List.of());
    }

    public static MetricSnapshots build(HostModel model, boolean allNetdevStats) {
        return build(model, allNetdevStats, List.of());
    }

    public static MetricSnapshots build(HostModel model, boolean allNetdevStats, List<Finding> findings) {
        return table(model, allNetdevStats, findings).snapshots();
    }

    /**
     * A host model's families as Prometheus text 0.0.4 (the {@code fabricd metrics} CLI), rendered
     * directly as a scrape does.
     */
    public static byte[] text(HostModel model, boolean allNetdevStats, List<Finding> findings) {
        return table(model, allNetdevStats, findings).render(false);
    }

    static FamilyTable table(HostModel model, boolean allNetdevStats, List<Finding> findings) {
        Families f = new Families();
        PortFamilies.declare(f);
        HostFamilies.declare(f);
        FindingFamilies.declare(f);
        PortFamilies.add(f, model);
        HostFamilies.add(f, model, allNetdevStats);
        FindingFamilies.add(f, findings);
        return f.build();
    }

    @Override
    public MetricSnapshots collect() {
        return served.snapshots();
    }

    /**
     * The names of the latest collection's families: a registry scrape filtered by name skips this
     * collector (and makes no snapshots) when it wants none of them. Empty before the first
     * collection (the registry then asks {@link #collect}, which answers nothing).
     */
    @Override
    public List<String> getPrometheusNames() {
        return served.nameList;
    }
}
