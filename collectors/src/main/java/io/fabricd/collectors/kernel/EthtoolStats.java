package io.fabricd.collectors.kernel;

import io.fabricd.model.Counters;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * Driver statistics of a netdev ({@code ethtool -S}), names as the driver gives them (docs/spec/host-facts.md §2.3),
 * sorted by name. The set changes at run time (mlx5 adds {@code rx_prioN_pause*} only for
 * PFC-enabled priorities).
 *
 * <p>Sorted once, here: the model keeps them sorted (per-priority statistics are found by range),
 * and a sorted map is copied in linear time where an unsorted one is sorted again (a 16-port host
 * has ~4 600 statistics per collection).
 */
public record EthtoolStats(String driver, Map<String, Long> stats) {

    public EthtoolStats {
        stats = Collections.unmodifiableSortedMap(new TreeMap<>(stats));
    }

    /**
     * Parses {@code ethtool -S} output: a header line, then {@code "     name: value"} lines.
     * Lines that are not a name and an unsigned decimal are skipped and counted in {@code bad}.
     */
    public static EthtoolStats parse(String text, int[] bad) {
        // by index, not split/strip/substring: a 16-port host has ~4 000 such lines per collection,
        // and only the names need a String (docs/benchmarks.md)
        Map<String, Long> m = new TreeMap<>();
        int n = text.length();
        int start = 0;
        while (start < n) {
            int nl = text.indexOf('\n', start);
            int end = nl < 0 ? n : nl;
            int b = start;
            int e = end;
            start = end + 1;
            while (b < e && Character.isWhitespace(text.charAt(b))) {
                b++;
            }
            while (e > b && Character.isWhitespace(text.charAt(e - 1))) {
                e--;
            }
            if (b == e || text.startsWith("statistics:", e - "statistics:".length()) && e - b >= "statistics:".length()) {
                continue;
            }
            int colon = text.lastIndexOf(':', e - 1);
            Long v = colon <= b ? null : Counters.parse(text, colon + 1, e);
            if (v == null) {
                if (bad != null) {
                    bad[0]++;
                }
                continue;
            }
            int ke = colon;
            while (ke > b && Character.isWhitespace(text.charAt(ke - 1))) {
                ke--;
            }
            m.put(text.substring(b, ke), v);
        }
        return new EthtoolStats(null, m);
    }
}
