package io.fabricd.collectors.model;

import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * One port of an RDMA device. Counter values are unsigned 64-bit held in a {@code long}
 * (use {@link Long#toUnsignedString} / {@link Counters#toDouble}).
 *
 * @param counters    every readable file of {@code counters/}, raw name, raw value (data in 4-octet units)
 * @param saturated   names of {@code counters/} pinned at their IBTA width's maximum
 * @param hwCounters  every readable file of {@code hw_counters/} but {@code lifespan}
 * @param gids        populated GID table entries (all-zero slots left out)
 * @param netdev      the netdev the port's GIDs are bound to (RoCE), the PCI function's netdev
 *                    (IPoIB), or rxe's parent; null when none is known
 */
public record RdmaPort(
        String device,
        int port,
        PortState state,
        PortState physState,
        LinkRate rate,
        String linkLayer,
        Integer lid,
        Integer smLid,
        SortedMap<String, Long> counters,
        SortedSet<String> saturated,
        SortedMap<String, Long> hwCounters,
        List<Gid> gids,
        String netdev) {

    public RdmaPort {
        counters = Counters.copy(counters);
        saturated = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(saturated));
        hwCounters = Counters.copy(hwCounters);
        gids = List.copyOf(gids);
    }

    /** ACTIVE and LinkUp. */
    public boolean up() {
        return state != null && state.id() == 4 && physState != null && physState.id() == 5;
    }

    public boolean isSaturated(String counter) {
        return saturated.contains(counter);
    }

    public Set<String> counterNames() {
        return counters.keySet();
    }
}
