package io.fabricd.model;

import java.util.Map;
import java.util.Set;
import java.util.SortedMap;

/**
 * The widths of the IBTA PMA counters in a port's {@code counters/} (IBA §16.1.3.5; linux
 * drivers/infiniband/core/sysfs.c; docs/spec/host-facts.md §1.5). Non-extended PortCounters saturate at all-ones and
 * stay there until cleared, so a pinned value means "at least this much" and a rate computed across
 * it reads zero.
 *
 * <p>A counter is judged by the width it provably has: the fixed error counters by their IBTA width,
 * the data and packet counters as 32-bit unless the port shows it has the 64-bit group (the
 * extended-only {@code unicast_*}/{@code multicast_*} files). A value above a width's maximum proves
 * the counter is wider (hfi1 and older mlx4 report 64-bit data counters without the extended-only
 * files), so only a value exactly at the maximum is saturation.
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

    /**
     * What a {@code counters/} file counts: errors (a damaged, dropped or refused packet, a link that
     * went down or retrained), congestion (time a port had data to send and could not:
     * {@code port_xmit_wait}, in ticks — a busy fabric's normal signature, never an error) or traffic
     * (data and packets).
     */
    public enum Kind { ERROR, CONGESTION, TRAFFIC }

    /** The kind of a {@code counters/} file by its IBTA name; traffic for names this table does not know. */
    public static Kind kind(String counter) {
        return "port_xmit_wait".equals(counter) ? Kind.CONGESTION : FIXED.containsKey(counter) ? Kind.ERROR : Kind.TRAFFIC;
    }

    /** Data and packet counters: 32-bit in PortCounters, 64-bit in PortCountersExtended. */
    private static final Set<String> DATA = Set.of("port_xmit_data", "port_rcv_data", "port_xmit_packets", "port_rcv_packets");

    /**
     * The width a {@code counters/} file nominally has on this port, or 0 when it is 64-bit or not a
     * PMA counter with a known width: the fixed error counters their IBTA width; data and packet
     * counters 32 unless the port has the extended-only files.
     */
    public static int width(String counter, SortedMap<String, Long> counters) {
        Integer w = FIXED.get(counter);
        if (w != null) {
            return w;
        }
        if (DATA.contains(counter)) {
            return extended(counters) ? 0 : 32;
        }
        return 0;
    }

    /** True when the port's counters/ holds the extended-only files (the 64-bit PortCountersExtended group). */
    private static boolean extended(SortedMap<String, Long> counters) {
        return hasPrefix(counters, "unicast_") || hasPrefix(counters, "multicast_");
    }

    private static boolean hasPrefix(SortedMap<String, Long> m, String prefix) {
        SortedMap<String, Long> tail = m.tailMap(prefix);
        return !tail.isEmpty() && tail.firstKey().startsWith(prefix);
    }

    /**
     * True when the counter sits exactly at the maximum of its width. A value above that maximum
     * proves the counter is wider than its nominal width: not saturated.
     */
    public static boolean saturated(String counter, long value, SortedMap<String, Long> counters) {
        int w = width(counter, counters);
        return w > 0 && w < 64 && value == (1L << w) - 1;
    }

    /** Names with a known fixed width (for docs and tests). */
    public static Map<String, Integer> fixedWidths() {
        return FIXED;
    }
}
