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
        Labels l = labels(labels);
        if (f.counter()) {
            f.points().add(CounterSnapshot.CounterDataPointSnapshot.builder().labels(l).value(value).build());
        } else {
            f.points().add(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(l).value(value).build());
        }
    }

    /**
     * Label sets by their names and values, kept across collections: a host's series are the same
     * from one collection to the next, and client_java validates every label name of every
     * {@code Labels.of} with a fresh UTF-8 encoder, which was a third of building the families
     * (issue 7, bench/jmh). Bounded: cleared when it grows past {@link #MAX_LABEL_SETS}.
     */
    private static final java.util.concurrent.ConcurrentHashMap<Key, Labels> LABEL_SETS = new java.util.concurrent.ConcurrentHashMap<>();
    static final int MAX_LABEL_SETS = 200_000;

    /** Alternating names and values as a map key: no string built per lookup (names are literals, values mostly kept strings). */
    private static final class Key {
        private final String[] kv;
        private final int hash;

        Key(String[] kv) {
            this.kv = kv;
            this.hash = java.util.Arrays.hashCode(kv);
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.hash == hash && java.util.Arrays.equals(k.kv, kv);
        }
    }

    static Labels labels(String... kv) {
        Labels l = LABEL_SETS.get(new Key(kv));
        if (l == null) {
            String[] copy = kv.clone();
            for (int i = 1; i < copy.length; i += 2) {
                if (copy[i] == null) {
                    copy[i] = "";
                }
            }
            l = Labels.of(copy);
            if (LABEL_SETS.size() >= MAX_LABEL_SETS) {
                LABEL_SETS.clear();
            }
            LABEL_SETS.put(new Key(kv.clone()), l);
        }
        return l;
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
