package io.fabricd.model;

import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * One port of an RDMA device. Counter values are unsigned 64-bit held in a {@code long}
 * (use {@link Long#toUnsignedString} / {@link Counters#toDouble}).
 *
 * @param counters    every readable file of {@code counters/}, raw name, raw value (data in 4-octet units)
 * @param countersExt every readable file of {@code counters_ext/} (kernels before 4.5: the 64-bit
 *                    {@code port_xmit_data_64}, {@code port_unicast_xmit_packets}, ...); empty elsewhere
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
        SortedMap<String, Long> countersExt,
        SortedSet<String> saturated,
        SortedMap<String, Long> hwCounters,
        List<Gid> gids,
        String netdev) {

    public RdmaPort {
        counters = Counters.copy(counters);
        countersExt = Counters.copy(countersExt);
        saturated = Collections.unmodifiableSortedSet(new TreeSet<>(saturated));
        hwCounters = Counters.copy(hwCounters);
        gids = List.copyOf(gids);
    }

    /**
     * ACTIVE and LinkUp. A port that is ACTIVE and whose physical state was not read is up: the
     * logical state ACTIVE needs a trained link (IBA 14.2.5.6; mlx5 reports ACTIVE only with
     * carrier), and a missing file is no evidence of the opposite.
     */
    public boolean up() {
        return state != null && state.id() == 4 && (physState == null || physState.id() == 5);
    }

    /**
     * False only when the port's logical state is known and not ACTIVE: a port that carries no
     * traffic, whose RoCE configuration (PFC, trust, MTU) no job depends on now. Unknown state
     * counts as in service: missing evidence is never a claim.
     */
    public boolean inService() {
        return state == null || state.id() == 4;
    }

    public boolean isSaturated(String counter) {
        return saturated.contains(counter);
    }

    /**
     * Bytes transmitted (true) or received: the 64-bit {@code counters_ext/port_*_data_64} where the
     * kernel has that folder (its {@code counters/} data counters are then the 32-bit ones), else
     * {@code counters/port_*_data}; in 4-octet units. Null when the port has neither.
     */
    public Long dataWords(boolean transmit) {
        Long ext = countersExt.get(transmit ? "port_xmit_data_64" : "port_rcv_data_64");
        return ext != null ? ext : counters.get(transmit ? "port_xmit_data" : "port_rcv_data");
    }

    /** Packets transmitted (true) or received, preferring {@code counters_ext/port_*_packets_64} as {@link #dataWords} does. */
    public Long packets(boolean transmit) {
        Long ext = countersExt.get(transmit ? "port_xmit_packets_64" : "port_rcv_packets_64");
        return ext != null ? ext : counters.get(transmit ? "port_xmit_packets" : "port_rcv_packets");
    }
}
