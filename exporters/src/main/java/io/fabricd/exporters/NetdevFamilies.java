package io.fabricd.exporters;

import static io.fabricd.model.Counters.toDouble;

import io.fabricd.model.DcbState;
import io.fabricd.model.DriverStats;
import io.fabricd.model.DriverStats.Dir;
import io.fabricd.model.HostModel;
import io.fabricd.model.NetdevInfo;
import io.fabricd.model.metrics.NetdevMetrics;
import java.util.SortedMap;

/**
 * The families of the netdevs bound to RDMA ports (interfaces.md, docs/metrics.md): sysfs state,
 * DCB/PFC, pause (per priority and 802.3x), per-priority traffic and drops, physical-layer errors,
 * from the driver's statistics by meaning ({@link DriverStats}).
 */
final class NetdevFamilies {

    private NetdevFamilies() {
    }


    static void add(Families f, HostModel m, boolean allStats) {
        for (NetdevInfo n : m.netdevs()) {
            netdev(f, n, allStats);
        }
    }

    /** Traffic per priority and direction: ethtool rx/tx_prioN_bytes, _packets, _discards. */
    private static void prio(Families f, String nd, SortedMap<String, Long> s) {
        for (String dir : new String[] {"rx", "tx"}) {
            for (int p = 0; p < 8; p++) {
                String key = dir + "_prio" + p + "_";
                String prio = String.valueOf(p);
                f.addCounter(NetdevMetrics.PRIORITY_BYTES, s.get(key + "bytes"), nd, prio, dir);
                f.addCounter(NetdevMetrics.PRIORITY_PACKETS, s.get(key + "packets"), nd, prio, dir);
                f.addCounter(NetdevMetrics.PRIORITY_DISCARDS, s.get(key + "discards"), nd, prio);
            }
        }
    }

    /** PFC pause frames and time per priority and direction, and the per-priority drop and ECN counters. */
    private static void perPriority(Families f, String nd, SortedMap<String, Long> s, DcbState dcb) {
        boolean ethtoolPause = false;
        for (int p = 0; p < 8; p++) {
            for (Dir dir : Dir.values()) {
                Long frames = DriverStats.pfcPauseFrames(s, dir, p);
                if (frames != null) {
                    ethtoolPause = true;
                    f.add(NetdevMetrics.PFC_PAUSE_FRAMES, toDouble(frames), nd, String.valueOf(p), dir.label());
                }
                Long us = DriverStats.pfcPauseMicros(s, dir, p);
                if (us != null) {
                    f.add(NetdevMetrics.PFC_PAUSE_SECONDS, toDouble(us) / 1e6, nd, String.valueOf(p), dir.label());
                }
            }
            f.addCounter(NetdevMetrics.PRIORITY_BUFFER_DISCARDS, DriverStats.priorityBufferDiscards(s, p), nd, String.valueOf(p));
            f.addCounter(NetdevMetrics.PRIORITY_CONGESTION_DISCARDS, DriverStats.priorityCongestionDiscards(s, p), nd, String.valueOf(p));
            f.addCounter(NetdevMetrics.PRIORITY_ECN_MARKED, DriverStats.priorityEcnMarked(s, p), nd, String.valueOf(p));
        }
        if (!ethtoolPause && dcb != null && dcb.supported() && dcb.requests().size() == 8 && dcb.indications().size() == 8) {
            for (int p = 0; p < 8; p++) { // mlx5: requests = sent (tx), indications = received (rx)
                f.add(NetdevMetrics.PFC_PAUSE_FRAMES, toDouble(dcb.indications().get(p)), nd, String.valueOf(p), "rx");
                f.add(NetdevMetrics.PFC_PAUSE_FRAMES, toDouble(dcb.requests().get(p)), nd, String.valueOf(p), "tx");
            }
        }
    }

    /** 802.3x global pause and pause control frames, and the physical layer's errors. */
    private static void linkLayer(Families f, String nd, SortedMap<String, Long> s) {
        for (Dir dir : Dir.values()) {
            f.addCounter(NetdevMetrics.GLOBAL_PAUSE_FRAMES, DriverStats.globalPauseFrames(s, dir), nd, dir.label());
            Long us = DriverStats.globalPauseMicros(s, dir);
            if (us != null) {
                f.add(NetdevMetrics.GLOBAL_PAUSE_SECONDS, toDouble(us) / 1e6, nd, dir.label());
            }
            f.addCounter(NetdevMetrics.PAUSE_CONTROL_FRAMES, DriverStats.pauseControlFrames(s, dir), nd, dir.label());
        }
        DriverStats.phyErrors(s).forEach((type, v) -> f.add(NetdevMetrics.PHY_ERRORS, toDouble(v), nd, type));
        DriverStats.laneErrors(s).forEach((lane, v) -> f.add(NetdevMetrics.PHY_LANE_ERRORS, toDouble(v), nd, lane.toString()));
        f.addCounter(NetdevMetrics.FEC_CORRECTED, DriverStats.correctedBits(s), nd);
        f.addCounter(NetdevMetrics.LINK_DOWN_EVENTS, DriverStats.linkDownEvents(s), nd);
    }

    private static void netdev(Families f, NetdevInfo n, boolean allStats) {
        String nd = n.name();
        f.addKnown(NetdevMetrics.MTU, n.mtu(), nd);
        f.addKnown(NetdevMetrics.CARRIER_CHANGES, n.carrierChanges(), nd);
        if (n.operstate() != null) {
            f.add(NetdevMetrics.UP, "up".equals(n.operstate()) ? 1 : 0, nd);
        }
        if (n.speedMbps() != null) {
            f.add(NetdevMetrics.SPEED, n.speedMbps() * 125_000.0, nd);
        }
        f.add(NetdevMetrics.INFO, 1, nd, n.type() == null ? "" : n.type() == 1 ? "ethernet"
                : n.type() == 32 ? "infiniband" : n.type().toString(), n.driver(), n.trust());
        DcbState dcb = n.dcb();
        if (dcb != null) {
            f.add(NetdevMetrics.DCB_SUPPORTED, dcb.supported() ? 1 : 0, nd);
        }
        n.pfc().ifPresent(pfc -> {
            for (int p = 0; p < 8; p++) {
                f.add(NetdevMetrics.PFC_ENABLED, pfc.enabled().contains(p) ? 1 : 0, nd, String.valueOf(p));
            }
        });
        SortedMap<String, Long> s = n.stats();
        prio(f, nd, s);
        perPriority(f, nd, s, dcb);
        linkLayer(f, nd, s);
        for (String stat : new String[] {"rx_discards_phy", "tx_discards_phy", "rx_out_of_buffer"}) {
            f.addCounter(NetdevMetrics.DISCARDS, s.get(stat), nd, stat);
        }
        f.addCounter(NetdevMetrics.PFC_STORM_EVENTS, s.get("tx_pause_storm_warning_events"), nd, "warning");
        f.addCounter(NetdevMetrics.PFC_STORM_EVENTS, s.get("tx_pause_storm_error_events"), nd, "error");
        for (String dir : new String[] {"rx", "tx"}) {
            Long uni = s.get(dir + "_vport_rdma_unicast_bytes");
            Long multi = s.get(dir + "_vport_rdma_multicast_bytes");
            if (uni != null || multi != null) {
                f.add(NetdevMetrics.ROCE_VPORT_BYTES, toDouble(uni == null ? 0 : uni) + toDouble(multi == null ? 0 : multi), nd, dir);
            }
        }
        if (allStats) {
            s.forEach((k, v) -> f.add(NetdevMetrics.STAT, toDouble(v), nd, k));
        }
        if (n.pause() != null) {
            f.add(NetdevMetrics.GLOBAL_PAUSE_ENABLED, n.pause().rx() ? 1 : 0, nd, "rx");
            f.add(NetdevMetrics.GLOBAL_PAUSE_ENABLED, n.pause().tx() ? 1 : 0, nd, "tx");
        } else {
            // mlx5 lists rx/tx_global_pause exactly while global pause is on (either direction)
            n.globalPause().ifPresent(on -> {
                if (!on) {
                    f.add(NetdevMetrics.GLOBAL_PAUSE_ENABLED, 0, nd, "rx");
                    f.add(NetdevMetrics.GLOBAL_PAUSE_ENABLED, 0, nd, "tx");
                }
            });
        }
        n.ecnNp().forEach((p, on) -> f.add(NetdevMetrics.ROCE_ECN_ENABLED, on ? 1 : 0, nd, "np", p.toString()));
        n.ecnRp().forEach((p, on) -> f.add(NetdevMetrics.ROCE_ECN_ENABLED, on ? 1 : 0, nd, "rp", p.toString()));
    }
}
