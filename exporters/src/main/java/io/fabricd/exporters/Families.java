package io.fabricd.exporters;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Accumulates one collection's data points per family and builds client_java snapshots of them;
 * families with no data point are left out. Names are given without {@code _total}: the exposition
 * formats add it for counters. client_java sorts families and data points and refuses a label set
 * added twice.
 */
final class Families {
    /**
     * Longest label value exported; longer ones (a garbled sysfs file of a megabyte as a firmware
     * version) are cut there and end in "...", so one bad file cannot make every scrape megabytes.
     */
    static final int MAX_LABEL_VALUE = 1024;
    private final Map<String, Family> families = new LinkedHashMap<>();

    private record Family(String name, String help, boolean counter, List<Labels> labels, List<Double> values) {
        Family(String name, String help, boolean counter) {
            this(name, help, counter, new ArrayList<>(), new ArrayList<>());
        }

        MetricSnapshot snapshot() {
            if (counter) {
                CounterSnapshot.Builder b = CounterSnapshot.builder().name(name).help(help);
                for (int i = 0; i < labels.size(); i++) {
                    b.dataPoint(CounterDataPointSnapshot.builder().labels(labels.get(i)).value(values.get(i)).build());
                }
                return b.build();
            }
            GaugeSnapshot.Builder b = GaugeSnapshot.builder().name(name).help(help);
            for (int i = 0; i < labels.size(); i++) {
                b.dataPoint(GaugeDataPointSnapshot.builder().labels(labels.get(i)).value(values.get(i)).build());
            }
            return b.build();
        }
    }

    void gauge(String name, String help) {
        families.putIfAbsent(name, new Family(name, help, false));
    }

    void counter(String name, String help) {
        families.putIfAbsent(name, new Family(name, help, true));
    }

    /**
     * Adds a point to a declared family; labels as alternating name, value (null values become "",
     * values longer than {@link #MAX_LABEL_VALUE} are cut).
     */
    void add(String name, double value, String... labels) {
        Family f = families.get(name);
        if (f == null) {
            throw new IllegalStateException("family not declared: " + name);
        }
        String[] kv = labels.clone();
        for (int i = 1; i < kv.length; i += 2) {
            if (kv[i] == null) {
                kv[i] = "";
            } else if (kv[i].length() > MAX_LABEL_VALUE) {
                kv[i] = kv[i].substring(0, MAX_LABEL_VALUE - 3) + "...";
            }
        }
        f.labels().add(Labels.of(kv));
        f.values().add(value);
    }

    /** One collection's families. */
    MetricSnapshots build() {
        List<MetricSnapshot> out = new ArrayList<>();
        for (Family f : families.values()) {
            if (!f.labels().isEmpty()) {
                out.add(f.snapshot());
            }
        }
        return new MetricSnapshots(out);
    }
}
