package io.fabricd.exporters;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
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
    private final LabelSets labelSets;

    /** Families whose label sets are made anew (the CLI, tests). */
    Families() {
        this(new LabelSets());
    }

    /** @param labelSets the label sets of the collection before, to reuse where they are the same */
    Families(LabelSets labelSets) {
        this.labelSets = labelSets;
    }

    private static final class Family {
        final String name;
        final String help;
        final boolean counter;
        final List<Labels> labels = new ArrayList<>();
        double[] values = new double[8];

        Family(String name, String help, boolean counter) {
            this.name = name;
            this.help = help;
            this.counter = counter;
        }

        void add(Labels l, double v) {
            if (labels.size() == values.length) {
                values = Arrays.copyOf(values, values.length * 2);
            }
            values[labels.size()] = v;
            labels.add(l);
        }

        MetricSnapshot snapshot() {
            if (counter) {
                CounterSnapshot.Builder b = CounterSnapshot.builder().name(name).help(help);
                for (int i = 0; i < labels.size(); i++) {
                    b.dataPoint(CounterDataPointSnapshot.builder().labels(labels.get(i)).value(values[i]).build());
                }
                return b.build();
            }
            GaugeSnapshot.Builder b = GaugeSnapshot.builder().name(name).help(help);
            for (int i = 0; i < labels.size(); i++) {
                b.dataPoint(GaugeDataPointSnapshot.builder().labels(labels.get(i)).value(values[i]).build());
            }
            return b.build();
        }
    }

    /**
     * The label sets of the last two collections, by content. A host's label sets hardly change
     * from one collection to the next, and client_java checks every label name of a new set (it
     * encodes each to UTF-8 to do so): on a 16-port host, making the same sets again was about two
     * thirds of the garbage building the families made (3.7 MB per collection, 1.3 MB with
     * this, docs/benchmarks.md). Bounded: a set unused for a collection is forgotten.
     */
    static final class LabelSets {
        private record Key(String[] kv, int hash) {
            Key(String[] kv) {
                this(kv, Arrays.hashCode(kv));
            }

            @Override
            public boolean equals(Object o) {
                return o instanceof Key k && k.hash == hash && Arrays.equals(k.kv, kv);
            }

            @Override
            public int hashCode() {
                return hash;
            }
        }

        private Map<Key, Labels> previous = new HashMap<>();
        private Map<Key, Labels> current = new HashMap<>();

        Labels of(String[] kv) {
            Key k = new Key(kv);
            Labels l = current.get(k);
            if (l == null) {
                l = previous.get(k);
                if (l == null) {
                    l = Labels.of(kv);
                }
                current.put(k, l);
            }
            return l;
        }

        /** A collection's families are built: what it did not use is forgotten after the next. */
        void next() {
            previous = current;
            current = new HashMap<>(previous.size() * 4 / 3 + 1);
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
        f.add(labelSets.of(kv), value);
    }

    /** One collection's families. */
    MetricSnapshots build() {
        List<MetricSnapshot> out = new ArrayList<>();
        for (Family f : families.values()) {
            if (!f.labels.isEmpty()) {
                out.add(f.snapshot());
            }
        }
        labelSets.next();
        return new MetricSnapshots(out);
    }
}
