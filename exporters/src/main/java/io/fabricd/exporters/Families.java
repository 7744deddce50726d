package io.fabricd.exporters;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Accumulates data points per family and builds client_java snapshots; families with no data point
 * are left out. Names are given without {@code _total}: the text writers add it for counters.
 */
final class Families {
    private final Map<String, Family> families = new LinkedHashMap<>();

    private record Family(String name, String help, boolean counter, List<Object> points) {
    }

    void gauge(String name, String help) {
        families.putIfAbsent(name, new Family(name, help, false, new ArrayList<>()));
    }

    void counter(String name, String help) {
        families.putIfAbsent(name, new Family(name, help, true, new ArrayList<>()));
    }

    /** Adds a point to a declared family; labels as alternating name, value (null values become ""). */
    void add(String name, double value, String... labels) {
        Family f = families.get(name);
        if (f == null) {
            throw new IllegalStateException("family not declared: " + name);
        }
        String[] kv = labels.clone();
        for (int i = 1; i < kv.length; i += 2) {
            if (kv[i] == null) {
                kv[i] = "";
            }
        }
        Labels l = Labels.of(kv);
        if (f.counter()) {
            f.points().add(CounterSnapshot.CounterDataPointSnapshot.builder().labels(l).value(value).build());
        } else {
            f.points().add(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(l).value(value).build());
        }
    }

    List<MetricSnapshot> build() {
        List<MetricSnapshot> out = new ArrayList<>();
        for (Family f : families.values()) {
            if (f.points().isEmpty()) {
                continue;
            }
            if (f.counter()) {
                CounterSnapshot.Builder b = CounterSnapshot.builder().name(f.name()).help(f.help());
                f.points().forEach(p -> b.dataPoint((CounterSnapshot.CounterDataPointSnapshot) p));
                out.add(b.build());
            } else {
                GaugeSnapshot.Builder b = GaugeSnapshot.builder().name(f.name()).help(f.help());
                f.points().forEach(p -> b.dataPoint((GaugeSnapshot.GaugeDataPointSnapshot) p));
                out.add(b.build());
            }
        }
        return out;
    }
}
