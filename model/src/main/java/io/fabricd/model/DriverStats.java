package io.fabricd.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A netdev's driver statistics ({@code ethtool -S}) by meaning instead of by driver name: pause
 * frames and pause time (per priority and 802.3x global), lossless-priority drops, and physical-layer
 * errors. The names come from the drivers' sources (docs/spec/host-facts.md §2.3):
 * <ul>
 * <li>mlx5 ({@code drivers/net/ethernet/mellanox/mlx5/core/en_stats.c}): {@code rx_prioN_pause},
 *     {@code rx_prioN_pause_duration} (µs), {@code rx_global_pause}, {@code rx_pause_ctrl_phy},
 *     {@code rx_prioN_buf_discard}, {@code rx_crc_errors_phy}, {@code rx_err_lane_N_phy}, ...;</li>
 * <li>bnxt_en ({@code bnxt_ethtool.c}): {@code rx_pause_frames}, {@code rx_pfc_ena_frames_priN},
 *     {@code rx_fcs_err_frames}, {@code rx_pcs_symbol_err}, {@code rx_corrected_bits},
 *     {@code link_down_events};</li>
 * <li>ice ({@code ice_ethtool.c}): {@code link_xoff_rx.nic} (newer kernels
 *     {@code port-rx-xoff_events}), {@code rx_priority_N_xoff.nic}, {@code rx_crc_errors.nic}.</li>
 * </ul>
 * A statistic the driver does not list is null: unknown, never zero.
 */
public final class DriverStats {
    private DriverStats() {
    }

    /** Receive (the peer paused this port) or transmit (this port paused its peer). */
    public enum Dir {
        RX, TX;

        public String label() {
            return this == RX ? "rx" : "tx";
        }
    }

    private static Long first(Map<String, Long> s, String... names) {
        for (String n : names) {
            Long v = s.get(n);
            if (v != null) {
                return v;
            }
        }
        return null;
    }

    /** PFC pause frames on a priority (mlx5 {@code rx_prioN_pause}, bnxt_en {@code rx_pfc_ena_frames_priN}, ice {@code rx_priority_N_xoff.nic}). */
    public static Long pfcPauseFrames(Map<String, Long> s, Dir dir, int prio) {
        String x = dir.label();
        return first(s, x + "_prio" + prio + "_pause", x + "_pfc_ena_frames_pri" + prio, x + "_priority_" + prio + "_xoff.nic");
    }

    /** Microseconds paused on a priority (mlx5 {@code rx_prioN_pause_duration}, bnxt_en {@code pfc_priN_rx_duration_us}). */
    public static Long pfcPauseMicros(Map<String, Long> s, Dir dir, int prio) {
        return first(s, dir.label() + "_prio" + prio + "_pause_duration", "pfc_pri" + prio + "_" + dir.label() + "_duration_us");
    }

    /**
     * 802.3x global pause frames (mlx5 {@code rx_global_pause}, listed only while global pause is
     * on; bnxt_en {@code rx_pause_frames}; ice {@code link_xoff_rx.nic} / {@code port-rx-xoff_events}).
     */
    public static Long globalPauseFrames(Map<String, Long> s, Dir dir) {
        String x = dir.label();
        return first(s, x + "_global_pause", x + "_pause_frames", "link_xoff_" + x + ".nic", "port-" + x + "-xoff_events");
    }

    /** Microseconds paused by 802.3x global pause (mlx5 {@code rx_global_pause_duration}). */
    public static Long globalPauseMicros(Map<String, Long> s, Dir dir) {
        return s.get(dir.label() + "_global_pause_duration");
    }

    /** Every MAC-control pause frame, PFC and global alike (mlx5 {@code rx_pause_ctrl_phy}). */
    public static Long pauseControlFrames(Map<String, Long> s, Dir dir) {
        return s.get(dir.label() + "_pause_ctrl_phy");
    }

    /** Received packets of a priority dropped because its receive buffer was full (mlx5 {@code rx_prioN_buf_discard}). */
    public static Long priorityBufferDiscards(Map<String, Long> s, int prio) {
        return s.get("rx_prio" + prio + "_buf_discard");
    }

    /** Received packets of a priority dropped by the NIC's congestion handling (mlx5 {@code rx_prioN_cong_discard}). */
    public static Long priorityCongestionDiscards(Map<String, Long> s, int prio) {
        return s.get("rx_prio" + prio + "_cong_discard");
    }

    /** Received packets of a priority the NIC marked ECN CE (mlx5 {@code rx_prioN_marked}). */
    public static Long priorityEcnMarked(Map<String, Long> s, int prio) {
        return s.get("rx_prio" + prio + "_marked");
    }

    /** A kind of receive error at the physical layer and the statistics that count it, by driver. */
    private record PhyError(String type, String... names) {
    }

    private static final List<PhyError> PHY_ERRORS = List.of(
            new PhyError("crc", "rx_crc_errors_phy", "rx_fcs_err_frames", "rx_crc_errors.nic", "port-rx-crc_errors"),
            new PhyError("symbol", "rx_symbol_err_phy"),
            new PhyError("pcs_symbol", "rx_pcs_symbol_err_phy", "rx_pcs_symbol_err"));

    /** Physical-layer receive errors by type ({@code crc}, {@code symbol}, {@code pcs_symbol}); only the types the driver lists. */
    public static SortedMap<String, Long> phyErrors(Map<String, Long> s) {
        SortedMap<String, Long> out = new TreeMap<>();
        for (PhyError e : PHY_ERRORS) {
            Long v = first(s, e.names());
            if (v != null) {
                out.put(e.type(), v);
            }
        }
        return out;
    }

    private static final Pattern LANE = Pattern.compile("^rx_err_lane_(\\d+)_phy$");

    /** Receive errors per physical lane (mlx5 {@code rx_err_lane_N_phy}), by lane number. */
    public static SortedMap<Integer, Long> laneErrors(Map<String, Long> s) {
        SortedMap<Integer, Long> out = new TreeMap<>();
        s.forEach((k, v) -> {
            if (k.startsWith("rx_err_lane_")) {
                Matcher m = LANE.matcher(k);
                if (m.matches()) {
                    out.put(Integer.parseInt(m.group(1)), v);
                }
            }
        });
        return out;
    }

    /** Bits the forward error correction repaired (mlx5 {@code rx_corrected_bits_phy}, bnxt_en {@code rx_corrected_bits}). */
    public static Long correctedBits(Map<String, Long> s) {
        return first(s, "rx_corrected_bits_phy", "rx_corrected_bits");
    }

    /** Times the physical link went down (mlx5 {@code link_down_events_phy}, bnxt_en {@code link_down_events}). */
    public static Long linkDownEvents(Map<String, Long> s) {
        return first(s, "link_down_events_phy", "link_down_events");
    }

    /**
     * True when these are mlx5's statistics read whole: the driver is mlx5_core (or unknown, and the
     * statistics hold mlx5's own RDMA vport counter), and the per-priority traffic counters, which
     * mlx5 always lists, are there.
     */
    private static boolean wholeMlx5(String driver, Map<String, Long> s) {
        boolean mlx5 = "mlx5_core".equals(driver) || driver == null && s.containsKey("rx_vport_rdma_unicast_packets");
        return mlx5 && s.containsKey("rx_prio0_bytes");
    }

    /**
     * The priorities with PFC on as the driver's statistics prove them, when they do: mlx5 lists
     * {@code rx/tx_prioN_pause} exactly for the priorities whose PFC is enabled (en_stats.c,
     * {@code mlx5e_query_pfc_combined}), so a capture of its statistics that shows the per-priority
     * traffic counters ({@code rx_prio0_bytes}: the statistics were read whole) proves the set; an
     * empty set means PFC is off on every priority. Empty when the statistics cannot tell (another
     * driver, or no statistics).
     */
    public static Optional<List<Integer>> pfcEnabled(String driver, Map<String, Long> s) {
        if (!wholeMlx5(driver, s)) {
            return Optional.empty();
        }
        List<Integer> on = new ArrayList<>();
        for (int p = 0; p < 8; p++) {
            if (s.containsKey("rx_prio" + p + "_pause") || s.containsKey("tx_prio" + p + "_pause")) {
                on.add(p);
            }
        }
        return Optional.of(List.copyOf(on));
    }

    /**
     * Whether 802.3x global pause is on as the driver's statistics prove it: mlx5 lists
     * {@code rx/tx_global_pause} exactly while global pause is on. Empty when they cannot tell.
     */
    public static Optional<Boolean> globalPauseOn(String driver, Map<String, Long> s) {
        if (!wholeMlx5(driver, s)) {
            return Optional.empty();
        }
        return Optional.of(s.containsKey("rx_global_pause") || s.containsKey("tx_global_pause"));
    }
}
