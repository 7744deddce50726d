package io.fabricd.collectors.model;

import java.util.Collections;
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
        String t = text.strip();
        if (t.isEmpty() || t.length() > 20) {
            return null;
        }
        for (int i = 0; i < t.length(); i++) {
            char c = t.charAt(i);
            if (c < '0' || c > '9') {
                return null;
            }
        }
        try {
            return Long.parseUnsignedLong(t);
        } catch (NumberFormatException e) {
            return null; // above 2^64-1
        }
    }

    static SortedMap<String, Long> copy(SortedMap<String, Long> m) {
        return FrozenSortedMap.of(m);
    }
}
