package io.fabricd.exporters;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
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

    /**
     * A family's data points in the order they were added (their label sets, which {@link #labels}
     * keeps, so the same instances every collection) and the order client_java sorts them into.
     */
    private record Order(Labels[] added, int[] sorted) {
    }

    /**
     * The last order of each family. client_java sorts every family's points by their labels when it
     * builds a snapshot; a host adds the same series in the same order every collection, so the
     * sorted order is computed once and the points handed over already sorted: the sort then only
     * confirms it (n - 1 comparisons instead of n log n; it was half of building the families,
     * issue 7). Bounded by the number of families.
     */
    private static final java.util.concurrent.ConcurrentHashMap<String, Order> ORDERS = new java.util.concurrent.ConcurrentHashMap<>();

    private static Labels labelsOf(Object point) {
        return ((io.prometheus.metrics.model.snapshots.DataPointSnapshot) point).getLabels();
    }

    /** The family's points in label order. */
    private static List<Object> sorted(Family f) {
        List<Object> points = f.points();
        int n = points.size();
        Order o = ORDERS.get(f.name());
        if (o == null || !sameOrder(o.added(), points)) {
            Labels[] added = new Labels[n];
            Integer[] idx = new Integer[n];
            for (int i = 0; i < n; i++) {
                added[i] = labelsOf(points.get(i));
                idx[i] = i;
            }
            java.util.Arrays.sort(idx, (a, b) -> added[a].compareTo(added[b]));
            int[] sorted = new int[n];
            for (int i = 0; i < n; i++) {
                sorted[i] = idx[i];
            }
            o = new Order(added, sorted);
            ORDERS.put(f.name(), o);
        }
        List<Object> out = new ArrayList<>(n);
        for (int i : o.sorted()) {
            out.add(points.get(i));
        }
        return out;
    }

    private static boolean sameOrder(Labels[] added, List<Object> points) {
        if (added.length != points.size()) {
            return false;
        }
        for (int i = 0; i < added.length; i++) {
            if (added[i] != labelsOf(points.get(i))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Each family's metadata, kept: the snapshot builders validate the name and help again on
     * every build (issue 7). Made by the builder once, so the name rules are client_java's.
     * Bounded by the number of families.
     */
    private static final java.util.concurrent.ConcurrentHashMap<String, MetricMetadata> METADATA = new java.util.concurrent.ConcurrentHashMap<>();

    private static MetricMetadata metadata(Family f) {
        MetricMetadata m = METADATA.get(f.name());
        if (m == null || !java.util.Objects.equals(m.getHelp(), f.help())) {
            m = (f.counter() ? CounterSnapshot.builder().name(f.name()).help(f.help()).build()
                    : GaugeSnapshot.builder().name(f.name()).help(f.help()).build()).getMetadata();
            METADATA.put(f.name(), m);
        }
        return m;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    List<MetricSnapshot> build() {
        List<MetricSnapshot> out = new ArrayList<>();
        for (Family f : families.values()) {
            if (f.points().isEmpty()) {
                continue;
            }
            List points = sorted(f);
            out.add(f.counter() ? new CounterSnapshot(metadata(f), points) : new GaugeSnapshot(metadata(f), points));
        }
        return out;
    }
}
