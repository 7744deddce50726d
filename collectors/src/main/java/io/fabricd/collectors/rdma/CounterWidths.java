package io.fabricd.collectors.rdma;

import java.util.Map;
import java.util.SortedMap;

/**
 * IBTA PortCounters widths (IBA §16.1.3.5; linux drivers/infiniband/core/sysfs.c; facts §1.5).
 * Non-extended PortCounters saturate at all-ones and stay there until cleared, so a pinned value
 * means "unknown, at least this much" and a rate computed across it reads zero.
 */
public final class CounterWidths {
    private CounterWidths() {
    }

    private static final Map<String, Integer> FIXED = Map.ofEntries(
            Map.entry("symbol_error", 16),
            Map.entry("link_error_recovery", 8),
            Map.entry("link_downed", 8),
            Map.entry("port_rcv_errors", 16),
            Map.entry("port_rcv_remote_physical_errors", 16),
            Map.entry("port_rcv_switch_relay_errors", 16),
            Map.entry("port_xmit_discards", 16),
            Map.entry("port_xmit_constraint_errors", 8),
            Map.entry("port_rcv_constraint_errors", 8),
            Map.entry("local_link_integrity_errors", 4),
            Map.entry("excessive_buffer_overrun_errors", 4),
            Map.entry("VL15_dropped", 16),
            Map.entry("port_xmit_wait", 32));

    /** Data and packet counters: 32-bit in PortCounters, 64-bit in PortCountersExtended. */
    private static final java.util.Set<String> DATA = java.util.Set.of(
            "port_xmit_data", "port_rcv_data", "port_xmit_packets", "port_rcv_packets");

    /**
     * The width of a {@code counters/} file, or 0 when it is 64-bit or unknown (never flagged).
     * Data/packet counters are taken as 32-bit only when the port has no extended-only file
     * (unicast_/multicast_*) and the value does not exceed 32 bits.
     */
    public static int width(String counter, SortedMap<String, Long> all) {
        Integer w = FIXED.get(counter);
        if (w != null) {
            return w;
        }
        if (DATA.contains(counter)) {
            boolean extended = all.keySet().stream().anyMatch(k -> k.startsWith("unicast_") || k.startsWith("multicast_"));
            return extended ? 0 : 32;
        }
        return 0;
    }

    /** True when the value is at (or, for garbage, above) the counter's maximum. */
    public static boolean saturated(String counter, long value, SortedMap<String, Long> all) {
        int w = width(counter, all);
        if (w == 0 || w >= 64) {
            return false;
        }
        long max = (1L << w) - 1;
        return Long.compareUnsigned(value, max) >= 0;
    }

    /** Names with a known fixed width (for docs and tests). */
    public static Map<String, Integer> fixedWidths() {
        return FIXED;
    }
}
