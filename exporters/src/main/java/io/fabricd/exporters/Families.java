package io.fabricd.exporters;

import io.fabricd.model.Counters;
import io.fabricd.model.metrics.MetricFamily;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Accumulates one collection's data points per declared family ({@code io.fabricd.model.metrics})
 * and builds client_java snapshots of them; families with no data point are left out. Name, help,
 * unit and label names all come from the declaration. client_java sorts families and data points
 * and refuses a label set added twice.
 */
final class Families {
    /**
     * Longest label value exported; longer ones (a garbled sysfs file of a megabyte as a firmware
     * version) are cut there and end in "...", so one bad file cannot make every scrape megabytes.
     */
    static final int MAX_LABEL_VALUE = 1024;
    private final Map<MetricFamily, List<Point>> families = new LinkedHashMap<>();

    private record Point(Labels labels, double value) {
    }

    /** Adds a point to a family whose labels are all declared; its label values in the declared order. */
    void add(MetricFamily family, double value, String... values) {
        if (values.length != family.labels().size() || family.moreLabels() != null) {
            throw new IllegalArgumentException(family.name() + " takes the labels " + family.labels()
                    + (family.moreLabels() == null ? "" : " and " + family.moreLabels()) + ", not " + values.length + " values");
        }
        put(family, family.labels().toArray(String[]::new), values, value);
    }

    /** Adds a point with label names of its own: the declared ones and those the family's moreLabels allow. */
    void add(MetricFamily family, double value, List<String> names, List<String> values) {
        if (!names.containsAll(family.labels()) || family.moreLabels() == null && names.size() != family.labels().size()) {
            throw new IllegalArgumentException(family.name() + " takes the labels " + family.labels() + ", not " + names);
        }
        put(family, names.toArray(String[]::new), values.toArray(String[]::new), value);
    }

    /** {@link #add} when the value is known (null: the host does not show it). */
    void addKnown(MetricFamily family, Number value, String... values) {
        if (value != null) {
            add(family, value.doubleValue(), values);
        }
    }

    /** {@link #addKnown} of a 64-bit counter, read unsigned. */
    void addCounter(MetricFamily family, Long value, String... values) {
        if (value != null) {
            add(family, Counters.toDouble(value), values);
        }
    }

    private void put(MetricFamily family, String[] names, String[] values, double value) {
        String[] v = new String[values.length];
        for (int i = 0; i < v.length; i++) { // null values become "", long ones are cut
            String s = values[i] == null ? "" : values[i];
            v[i] = s.length() > MAX_LABEL_VALUE ? s.substring(0, MAX_LABEL_VALUE - 3) + "..." : s;
        }
        families.computeIfAbsent(family, k -> new ArrayList<>()).add(new Point(Labels.of(names, v), value));
    }

    /** One collection's families. */
    MetricSnapshots build() {
        List<MetricSnapshot> out = new ArrayList<>(families.size());
        families.forEach((family, points) -> out.add(snapshot(family, points)));
        return new MetricSnapshots(out);
    }

    private static MetricSnapshot snapshot(MetricFamily family, List<Point> points) {
        Unit unit = family.unit() == null ? null : new Unit(family.unit());
        return switch (family.type()) {
            case COUNTER -> {
                CounterSnapshot.Builder b = CounterSnapshot.builder().name(family.name()).help(family.help()).unit(unit);
                points.forEach(p -> b.dataPoint(CounterDataPointSnapshot.builder().labels(p.labels()).value(p.value()).build()));
                yield b.build();
            }
            case GAUGE -> {
                GaugeSnapshot.Builder b = GaugeSnapshot.builder().name(family.name()).help(family.help()).unit(unit);
                points.forEach(p -> b.dataPoint(GaugeDataPointSnapshot.builder().labels(p.labels()).value(p.value()).build()));
                yield b.build();
            }
            default -> throw new IllegalArgumentException(family.name() + ": the host's families are gauges and counters, not "
                    + family.type().word());
        };
    }
}
