package io.fabricd.exporters;

import static io.fabricd.model.Counters.toDouble;

import io.fabricd.model.DcbState;
import io.fabricd.model.DriverStats;
import io.fabricd.model.DriverStats.Dir;
import io.fabricd.model.HostModel;
import io.fabricd.model.NetdevInfo;
import java.util.Map;
import java.util.SortedMap;

/**
 * The families of the netdevs bound to RDMA ports (interfaces.md, docs/metrics.md): sysfs state,
 * DCB/PFC, pause (per priority and 802.3x), per-priority traffic and drops, physical-layer errors,
 * from the driver's statistics by meaning ({@link DriverStats}).
 */
final class NetdevFamilies {

    private NetdevFamilies() {
    }

    static void declare(Families f) {
        f.gauge("fabric_netdev_mtu_bytes", "MTU of a netdev bound to an RDMA port.");
        f.gauge("fabric_netdev_up", "1 when the netdev's operstate is up.");
        f.counter("fabric_netdev_carrier_changes", "Times the netdev's carrier went up or down (sysfs carrier_changes): a flap between two scrapes shows here.");
        f.gauge("fabric_netdev_speed_bytes_per_second", "Netdev link speed (sysfs speed, Mb/s x 125000).");
        f.gauge("fabric_netdev_info", "One per RDMA netdev: type, driver, trust mode; value 1.");
        f.gauge("fabric_pfc_enabled", "1 when PFC is enabled on the priority (DCB IEEE pfc_en, or what mlx5's statistics prove when DCB is not known).");
        f.gauge("fabric_dcb_supported", "1 when the netdev answers DCB netlink, 0 when it has no DCB support (veth, virtio); absent when not known.");
        f.counter("fabric_pfc_pause_frames", "PFC pause frames per priority and direction (ethtool rx/tx_prioN_pause, rx/tx_pfc_ena_frames_priN, else DCB indications/requests).");
        f.counter("fabric_pfc_pause_seconds", "Time paused per priority and direction (ethtool rx/tx_prioN_pause_duration, microseconds / 1e6).");
        f.counter("fabric_global_pause_frames", "802.3x global pause frames by direction (ethtool rx/tx_global_pause, rx/tx_pause_frames, link_xoff_rx/tx).");
        f.counter("fabric_global_pause_seconds", "Time paused by 802.3x global pause by direction (ethtool rx/tx_global_pause_duration, microseconds / 1e6).");
        f.counter("fabric_netdev_pause_control_frames", "Every MAC-control pause frame, PFC and global alike, by direction (ethtool rx/tx_pause_ctrl_phy).");
        f.counter("fabric_netdev_priority_buffer_discards", "Received packets of a priority dropped because its buffer was full (ethtool rx_prioN_buf_discard): loss on a lossless class.");
        f.counter("fabric_netdev_priority_congestion_discards", "Received packets of a priority dropped by the NIC's congestion handling (ethtool rx_prioN_cong_discard).");
        f.counter("fabric_netdev_priority_ecn_marked_packets", "Received packets of a priority the NIC marked ECN CE (ethtool rx_prioN_marked).");
        f.counter("fabric_netdev_phy_errors", "Physical-layer receive errors by type: crc (rx_crc_errors_phy, rx_fcs_err_frames), symbol (rx_symbol_err_phy), pcs_symbol.");
        f.counter("fabric_netdev_phy_lane_errors", "Physical-layer receive errors per lane (ethtool rx_err_lane_N_phy).");
        f.counter("fabric_netdev_fec_corrected", "Bits the forward error correction repaired (ethtool rx_corrected_bits_phy, rx_corrected_bits).");
        f.counter("fabric_netdev_link_down_events", "Times the physical link went down (ethtool link_down_events_phy, link_down_events).");
        f.counter("fabric_netdev_priority_bytes", "Bytes per 802.1p priority and direction (ethtool rx/tx_prioN_bytes).");
        f.counter("fabric_netdev_priority_packets", "Packets per 802.1p priority and direction (ethtool rx/tx_prioN_packets).");
        f.counter("fabric_netdev_priority_discards", "Received packets discarded per priority (ethtool rx_prioN_discards).");
        f.counter("fabric_netdev_discards", "NIC drops by ethtool statistic: rx_discards_phy (no buffer: lossy RoCE), tx_discards_phy, rx_out_of_buffer.");
        f.counter("fabric_pfc_storm_events", "PFC storm watchdog events (ethtool tx_pause_storm_warning_events / _error_events).");
        f.counter("fabric_roce_vport_bytes", "RoCE bytes of this PCI function by direction (ethtool rx/tx_vport_rdma_unicast_bytes + multicast).");
        f.counter("fabric_netdev_stat", "Every ethtool statistic of RDMA netdevs (opt-in: netdev.all_stats).");
        f.gauge("fabric_global_pause_enabled", "1 when 802.3x global pause is on for the direction (ETHTOOL_GPAUSEPARAM; mlx5's statistics when it was not read).");
        f.gauge("fabric_roce_ecn_enabled", "MLNX_OFED ECN knob ecn/roce_np|roce_rp/enable/<prio>: 1 on, 0 off.");
    }

    static void add(Families f, HostModel m, boolean allStats) {
        for (NetdevInfo n : m.netdevs()) {
            netdev(f, n, allStats);
        }
    }

    /**
     * The rx_prio and tx_prio traffic statistics as their families' points: only the two ranges of
     * the sorted statistics that hold them are visited, not a netdev's hundreds of others.
     */
    private static void prio(Families f, String nd, SortedMap<String, Long> s) {
        for (String dir : new String[] {"rx", "tx"}) {
            String from = dir + "_prio";
            s.subMap(from + "0_", from + "8").forEach((key, value) -> {
                // rx_prio3_bytes: the priority at [7], its kind after the '_' at [8]
                if (key.length() < 10 || key.charAt(8) != '_' || key.charAt(7) < '0' || key.charAt(7) > '7') {
                    return;
                }
                String prio = PRIORITIES[key.charAt(7) - '0'];
                double v = toDouble(value);
                switch (key.substring(9)) {
                    case "bytes" -> f.add("fabric_netdev_priority_bytes", v, "netdev", nd, "priority", prio, "direction", dir);
                    case "packets" -> f.add("fabric_netdev_priority_packets", v, "netdev", nd, "priority", prio, "direction", dir);
                    case "discards" -> f.add("fabric_netdev_priority_discards", v, "netdev", nd, "priority", prio);
                    default -> {
                    }
                }
            });
        }
    }

    private static final String[] PRIORITIES = {"0", "1", "2", "3", "4", "5", "6", "7"};

    /** PFC pause frames and time per priority and direction, and the per-priority drop and ECN counters. */
    private static void perPriority(Families f, String nd, SortedMap<String, Long> s, DcbState dcb) {
        boolean ethtoolPause = false;
        for (int p = 0; p < 8; p++) {
            for (Dir dir : Dir.values()) {
                Long frames = DriverStats.pfcPauseFrames(s, dir, p);
                if (frames != null) {
                    ethtoolPause = true;
                    f.add("fabric_pfc_pause_frames", toDouble(frames), "netdev", nd, "priority", PRIORITIES[p], "direction", dir.label());
                }
                Long us = DriverStats.pfcPauseMicros(s, dir, p);
                if (us != null) {
                    f.add("fabric_pfc_pause_seconds", toDouble(us) / 1e6, "netdev", nd, "priority", PRIORITIES[p], "direction", dir.label());
                }
            }
            add(f, "fabric_netdev_priority_buffer_discards", DriverStats.priorityBufferDiscards(s, p), "netdev", nd, "priority", PRIORITIES[p]);
            add(f, "fabric_netdev_priority_congestion_discards", DriverStats.priorityCongestionDiscards(s, p), "netdev", nd, "priority", PRIORITIES[p]);
            add(f, "fabric_netdev_priority_ecn_marked_packets", DriverStats.priorityEcnMarked(s, p), "netdev", nd, "priority", PRIORITIES[p]);
        }
        if (!ethtoolPause && dcb != null && dcb.supported() && dcb.requests().size() == 8 && dcb.indications().size() == 8) {
            for (int p = 0; p < 8; p++) { // mlx5: requests = sent (tx), indications = received (rx)
                f.add("fabric_pfc_pause_frames", toDouble(dcb.indications().get(p)), "netdev", nd, "priority", PRIORITIES[p], "direction", "rx");
                f.add("fabric_pfc_pause_frames", toDouble(dcb.requests().get(p)), "netdev", nd, "priority", PRIORITIES[p], "direction", "tx");
            }
        }
    }

    /** 802.3x global pause and pause control frames, and the physical layer's errors. */
    private static void linkLayer(Families f, String nd, SortedMap<String, Long> s) {
        for (Dir dir : Dir.values()) {
            add(f, "fabric_global_pause_frames", DriverStats.globalPauseFrames(s, dir), "netdev", nd, "direction", dir.label());
            Long us = DriverStats.globalPauseMicros(s, dir);
            if (us != null) {
                f.add("fabric_global_pause_seconds", toDouble(us) / 1e6, "netdev", nd, "direction", dir.label());
            }
            add(f, "fabric_netdev_pause_control_frames", DriverStats.pauseControlFrames(s, dir), "netdev", nd, "direction", dir.label());
        }
        DriverStats.phyErrors(s).forEach((type, v) -> f.add("fabric_netdev_phy_errors", toDouble(v), "netdev", nd, "type", type));
        DriverStats.laneErrors(s).forEach((lane, v) -> f.add("fabric_netdev_phy_lane_errors", toDouble(v), "netdev", nd, "lane", lane.toString()));
        add(f, "fabric_netdev_fec_corrected", DriverStats.correctedBits(s), "netdev", nd);
        add(f, "fabric_netdev_link_down_events", DriverStats.linkDownEvents(s), "netdev", nd);
    }

    /** A point when the statistic is there. */
    private static void add(Families f, String family, Long value, String... labels) {
        if (value != null) {
            f.add(family, toDouble(value), labels);
        }
    }

    private static void netdev(Families f, NetdevInfo n, boolean allStats) {
        String nd = n.name();
        if (n.mtu() != null) {
            f.add("fabric_netdev_mtu_bytes", n.mtu(), "netdev", nd);
        }
        if (n.carrierChanges() != null) {
            f.add("fabric_netdev_carrier_changes", n.carrierChanges(), "netdev", nd);
        }
        if (n.operstate() != null) {
            f.add("fabric_netdev_up", "up".equals(n.operstate()) ? 1 : 0, "netdev", nd);
        }
        if (n.speedMbps() != null) {
            f.add("fabric_netdev_speed_bytes_per_second", n.speedMbps() * 125_000.0, "netdev", nd);
        }
        f.add("fabric_netdev_info", 1, "netdev", nd, "type", n.type() == null ? "" : n.type() == 1 ? "ethernet"
                : n.type() == 32 ? "infiniband" : n.type().toString(), "driver", n.driver(), "trust", n.trust());
        DcbState dcb = n.dcb();
        if (dcb != null) {
            f.add("fabric_dcb_supported", dcb.supported() ? 1 : 0, "netdev", nd);
        }
        n.pfc().ifPresent(pfc -> {
            for (int p = 0; p < 8; p++) {
                f.add("fabric_pfc_enabled", pfc.enabled().contains(p) ? 1 : 0, "netdev", nd, "priority", PRIORITIES[p]);
            }
        });
        SortedMap<String, Long> s = n.stats();
        prio(f, nd, s);
        perPriority(f, nd, s, dcb);
        linkLayer(f, nd, s);
        for (String stat : new String[] {"rx_discards_phy", "tx_discards_phy", "rx_out_of_buffer"}) {
            Long v = s.get(stat);
            if (v != null) {
                f.add("fabric_netdev_discards", toDouble(v), "netdev", nd, "stat", stat);
            }
        }
        Long warn = s.get("tx_pause_storm_warning_events");
        if (warn != null) {
            f.add("fabric_pfc_storm_events", toDouble(warn), "netdev", nd, "level", "warning");
        }
        Long err = s.get("tx_pause_storm_error_events");
        if (err != null) {
            f.add("fabric_pfc_storm_events", toDouble(err), "netdev", nd, "level", "error");
        }
        for (String dir : new String[] {"rx", "tx"}) {
            Long uni = s.get(dir + "_vport_rdma_unicast_bytes");
            Long multi = s.get(dir + "_vport_rdma_multicast_bytes");
            if (uni != null || multi != null) {
                f.add("fabric_roce_vport_bytes", toDouble(uni == null ? 0 : uni) + toDouble(multi == null ? 0 : multi),
                        "netdev", nd, "direction", dir);
            }
        }
        if (allStats) {
            s.forEach((k, v) -> f.add("fabric_netdev_stat", toDouble(v), "netdev", nd, "stat", k));
        }
        if (n.pause() != null) {
            f.add("fabric_global_pause_enabled", n.pause().rx() ? 1 : 0, "netdev", nd, "direction", "rx");
            f.add("fabric_global_pause_enabled", n.pause().tx() ? 1 : 0, "netdev", nd, "direction", "tx");
        } else {
            // mlx5 lists rx/tx_global_pause exactly while global pause is on (either direction)
            n.globalPause().ifPresent(on -> {
                if (!on) {
                    f.add("fabric_global_pause_enabled", 0, "netdev", nd, "direction", "rx");
                    f.add("fabric_global_pause_enabled", 0, "netdev", nd, "direction", "tx");
                }
            });
        }
        n.ecnNp().forEach((p, on) -> f.add("fabric_roce_ecn_enabled", on ? 1 : 0, "netdev", nd, "point", "np", "priority", p.toString()));
        n.ecnRp().forEach((p, on) -> f.add("fabric_roce_ecn_enabled", on ? 1 : 0, "netdev", nd, "point", "rp", "priority", p.toString()));
    }
}
