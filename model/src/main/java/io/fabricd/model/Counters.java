package io.fabricd.model;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/** Helpers for unsigned 64-bit counter values held in a {@code long}. */
public final class Counters {
    private Counters() {
    }

    /** The unsigned value as a double (Prometheus sample values are doubles). */
    public static double toDouble(long unsigned) {
        if (unsigned >= 0) {
            return unsigned;
        }
        return ((unsigned >>> 1) * 2.0) + (unsigned & 1);
    }

    /** Parses an unsigned decimal counter as sysfs prints it; null when it is not one. */
    public static Long parse(String text) {
        return parse(text, 0, text.length());
    }

    /**
     * {@link #parse(String)} of {@code text[from, to)}, without making a String of it (ethtool's
     * ~4 000 lines per collection on a 16-port host are parsed in place).
     */
    public static Long parse(CharSequence text, int from, int to) {
        while (from < to && Character.isWhitespace(text.charAt(from))) {
            from++;
        }
        while (to > from && Character.isWhitespace(text.charAt(to - 1))) {
            to--;
        }
        if (from == to || to - from > 20) {
            return null;
        }
        long v = 0;
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return null;
            }
            int d = c - '0';
            // v * 10 + d overflows 64 unsigned bits when v > (2^64-1-d)/10
            if (Long.compareUnsigned(v, Long.divideUnsigned(-1L - d, 10)) > 0) {
                return null; // above 2^64-1
            }
            v = v * 10 + d;
        }
        return v;
    }

    /** An unmodifiable sorted copy (null: empty), as the model's records keep their maps. */
    public static <K extends Comparable<K>, V> SortedMap<K, V> copy(Map<K, V> m) {
        return m == null ? Collections.emptySortedMap() : Collections.unmodifiableSortedMap(new TreeMap<>(m));
    }
}
