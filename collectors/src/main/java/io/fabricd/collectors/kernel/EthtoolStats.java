package io.fabricd.collectors.kernel;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Driver statistics of a netdev ({@code ethtool -S}), names as the driver gives them (facts §2.3).
 * The set changes at run time (mlx5 adds {@code rx_prioN_pause*} only for PFC-enabled priorities).
 */
public record EthtoolStats(String driver, Map<String, Long> stats) {

    public EthtoolStats {
        stats = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(stats));
    }

    /**
     * Parses {@code ethtool -S} output: a header line, then {@code "     name: value"} lines.
     * Lines that are not a name and an unsigned decimal are skipped and counted in {@code bad}.
     */
    public static EthtoolStats parse(String text, int[] bad) {
        Map<String, Long> m = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            String t = line.strip();
            if (t.isEmpty() || t.endsWith("statistics:")) {
                continue;
            }
            int colon = t.lastIndexOf(':');
            Long v = colon <= 0 ? null : io.fabricd.collectors.model.Counters.parse(t.substring(colon + 1));
            if (v == null) {
                if (bad != null) {
                    bad[0]++;
                }
                continue;
            }
            m.put(t.substring(0, colon).strip(), v);
        }
        return new EthtoolStats(null, m);
    }
}
