package io.fabricd.exporters;

import io.prometheus.metrics.model.snapshots.Labels;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Accumulates data points per family and builds one collection's {@link FamilyTable}; families with no
 * data point are left out. Names are given without {@code _total}: the text formats add it for
 * counters.
 *
 * <p>A host has the same series from one collection to the next, so what a series is — its label
 * set, validated by client_java once, and its labels already written as exposition text — is kept
 * across collections ({@link Series}), and so is each family's order of series. A collection then
 * only records values; the table renders them straight to the text formats (one copy of kept bytes
 * and a number per series) and builds client_java snapshots only when something asks for them (a
 * {@code name[]} filter, dots escaping). Building snapshots and having client_java write them was the
 * largest cost after the reads on a 16-port host, and most of a scrape body's rendering (issue 7,
 * docs/benchmarks.md, seventh session).
 */
final class Families {
    private final Map<String, Family> families = new LinkedHashMap<>();

    private static final class Family {
        final String name;
        final String help;
        final boolean counter;
        /** The last collection's series in the order they were added: the likely series of each point. */
        final Series[] guess;
        Series[] series;
        double[] values;
        int n;

        Family(String name, String help, boolean counter) {
            this.name = name;
            this.help = help;
            this.counter = counter;
            Order o = ORDERS.get(name);
            this.guess = o == null ? null : o.added();
            // as many points as last time: no growing copies for a family of thousands (hw counters)
            int size = guess == null ? 16 : Math.max(1, guess.length);
            series = new Series[size];
            values = new double[size];
        }

        /** The series of the next point: the last collection's at this position when the labels match, else looked up. */
        Series next(String[] kv) {
            if (guess != null && n < guess.length && guess[n].matches(kv)) {
                return guess[n];
            }
            return series(kv);
        }

        void add(Series s, double v) {
            if (n == series.length) {
                series = Arrays.copyOf(series, n * 2);
                values = Arrays.copyOf(values, n * 2);
            }
            series[n] = s;
            values[n++] = v;
        }
    }

    void gauge(String name, String help) {
        families.putIfAbsent(name, new Family(name, help, false));
    }

    void counter(String name, String help) {
        families.putIfAbsent(name, new Family(name, help, true));
    }

    /** Adds a point to a declared family; labels as alternating name, value (null values become ""). */
    void add(String name, double value, String... labels) {
        Family f = families.get(name);
        if (f == null) {
            throw new IllegalStateException("family not declared: " + name);
        }
        if (f.counter && value < 0) {
            // as client_java's counter data points refuse it (they are made from this table on demand)
            throw new IllegalArgumentException(name + ": a counter cannot be negative: " + value);
        }
        f.add(f.next(labels), value);
    }

    /**
     * A label set and its exposition text, kept across collections: made (and validated by
     * client_java's {@code Labels.of}) the first time a host shows it.
     */
    static final class Series {
        /** The alternating names and values it was made from (null values as ""), shared with its key. */
        private final String[] kv;
        final Labels labels;
        /** {@code {name="value",...}} as the text formats write it (empty without labels). */
        final byte[] text;

        private Series(String[] kv) {
            this.kv = kv;
            this.labels = Labels.of(kv);
            this.text = labelText(labels);
        }

        /** Whether these alternating names and values are this series' (a null value matches ""). */
        boolean matches(String[] other) {
            if (other.length != kv.length) {
                return false;
            }
            for (int i = 0; i < kv.length; i++) {
                String a = kv[i];
                String b = other[i];
                if (a != b && !(b == null ? a.isEmpty() : a.equals(b))) {
                    return false;
                }
            }
            return true;
        }
    }

    /**
     * Series by their label names and values, kept across collections: a host's series are the
     * same from one collection to the next, and client_java validates every label name of every
     * {@code Labels.of} with a fresh UTF-8 encoder, which was a third of building the families
     * (issue 7, bench/jmh). Bounded: cleared when it grows past {@link #MAX_LABEL_SETS}.
     */
    private static final ConcurrentHashMap<Key, Series> SERIES = new ConcurrentHashMap<>();
    static final int MAX_LABEL_SETS = 200_000;

    /** Alternating names and values as a map key: no string built per lookup (names are literals, values mostly kept strings). */
    private static final class Key {
        private final String[] kv;
        private final int hash;

        Key(String[] kv) {
            this.kv = kv;
            this.hash = Arrays.hashCode(kv);
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.hash == hash && Arrays.equals(k.kv, kv);
        }
    }

    static Series series(String... kv) {
        for (int i = 1; i < kv.length; i += 2) {
            if (kv[i] == null) {
                kv = kv.clone(); // keys hold "" for a null value: one key per label set
                for (int j = i; j < kv.length; j += 2) {
                    if (kv[j] == null) {
                        kv[j] = "";
                    }
                }
                break;
            }
        }
        Series s = SERIES.get(new Key(kv));
        if (s == null) {
            String[] copy = kv.clone(); // never the caller's array, which it may reuse
            s = new Series(copy);
            if (SERIES.size() >= MAX_LABEL_SETS) {
                SERIES.clear();
            }
            SERIES.put(new Key(copy), s);
        }
        return s;
    }

    /** The kept label set of these alternating names and values (tests). */
    static Labels labels(String... kv) {
        return series(kv).labels;
    }

    /** {@code {a="x",b="y"}}: names in client_java's order (sorted), values escaped as both text formats escape them. */
    private static byte[] labelText(Labels labels) {
        if (labels.isEmpty()) {
            return new byte[0];
        }
        StringBuilder b = new StringBuilder(16 * labels.size());
        b.append('{');
        for (int i = 0; i < labels.size(); i++) {
            if (i > 0) {
                b.append(',');
            }
            b.append(labels.getName(i)).append("=\"");
            escape(b, labels.getValue(i), true);
            b.append('"');
        }
        b.append('}');
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Backslash and newline escaped (HELP text); double quotes too when {@code quotes} (label values, OpenMetrics HELP). */
    static void escape(StringBuilder b, String s, boolean quotes) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '"' -> b.append(quotes ? "\\\"" : "\"");
                default -> b.append(c);
            }
        }
    }

    /**
     * A family's series in the order they were added and the order client_java sorts them into.
     * A host adds the same series in the same order every collection, so the label order is
     * computed once (it was half of building the families, issue 7). Bounded by the families.
     */
    private record Order(Series[] added, int[] sorted) {
    }

    private static final ConcurrentHashMap<String, Order> ORDERS = new ConcurrentHashMap<>();

    /** The family's series in label order; a label set added twice is an error, as client_java makes it. */
    private static int[] sorted(Family f) {
        Order o = ORDERS.get(f.name);
        if (o != null && o.added().length == f.n) {
            Series[] added = o.added();
            boolean same = true;
            for (int i = 0; i < f.n && same; i++) {
                same = added[i] == f.series[i];
            }
            if (same) {
                return o.sorted();
            }
        }
        Series[] added = Arrays.copyOf(f.series, f.n);
        Integer[] idx = new Integer[f.n];
        for (int i = 0; i < f.n; i++) {
            idx[i] = i;
        }
        Arrays.sort(idx, (a, b) -> added[a].labels.compareTo(added[b].labels));
        int[] sorted = new int[f.n];
        for (int i = 0; i < f.n; i++) {
            sorted[i] = idx[i];
            if (i > 0 && added[sorted[i - 1]].labels.equals(added[sorted[i]].labels)) {
                throw new IllegalArgumentException(f.name + ": duplicate labels " + added[sorted[i]].labels);
            }
        }
        ORDERS.put(f.name, new Order(added, sorted));
        return sorted;
    }

    /** One collection's families: immutable, sorted by name, each family's points in label order. */
    FamilyTable build() {
        List<FamilyTable.Part> parts = new ArrayList<>();
        for (Family f : families.values()) {
            if (f.n == 0) {
                continue;
            }
            int[] order = sorted(f);
            Series[] series = new Series[f.n];
            double[] values = new double[f.n];
            for (int i = 0; i < f.n; i++) {
                series[i] = f.series[order[i]];
                values[i] = f.values[order[i]];
            }
            parts.add(new FamilyTable.Part(FamilyTable.Header.of(f.name, f.help, f.counter), series, values));
        }
        parts.sort((a, b) -> a.header().name().compareTo(b.header().name()));
        return new FamilyTable(List.copyOf(parts));
    }
}
