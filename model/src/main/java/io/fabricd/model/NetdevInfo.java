package io.fabricd.model;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;

/**
 * A netdev bound to an RDMA port (docs/spec/host-facts.md §2): sysfs state, driver statistics, global pause, DCB,
 * and the MLNX_OFED QoS/ECN knobs when present. Null means "not known on this host".
 *
 * @param speedMbps   sysfs speed; null when the read fails (EINVAL while down is normal) or -1
 * @param type        ARPHRD type: 1 Ethernet, 32 InfiniBand (IPoIB)
 * @param stats       ethtool -S, driver names; empty when the driver has none or they were not captured
 * @param dcb         null when unknown (IPoIB, not asked; a snapshot without its DCB side-car);
 *                    {@link DcbState#supported()} false when the netdev has no DCB support (veth, virtio)
 * @param trust       "dscp" or "pcp"; null when unknown (no DCB and no MLNX_OFED qos/trust)
 * @param trustSource "qos/trust" (MLNX_OFED sysfs) or "dcb-app" (DSCP APP entries, upstream mlx5)
 * @param ecnNp       MLNX_OFED ecn/roce_np/enable/&lt;prio&gt;; empty when absent (upstream kernels)
 * @param ecnRp       MLNX_OFED ecn/roce_rp/enable/&lt;prio&gt;
 * @param carrierChanges sysfs {@code carrier_changes}: times the carrier went up or down since the
 *                    netdev was created (a flap between two collections shows here); null when not read
 */
public record NetdevInfo(String name, Integer mtu, String operstate, Integer carrier, Long speedMbps, Integer type,
                         String driver, SortedMap<String, Long> stats, PauseParams pause, DcbState dcb, String trust,
                         String trustSource, SortedMap<Integer, Boolean> ecnNp, SortedMap<Integer, Boolean> ecnRp,
                         Long carrierChanges) {

    public NetdevInfo {
        stats = Counters.copy(stats);
        ecnNp = Counters.copy(ecnNp);
        ecnRp = Counters.copy(ecnRp);
    }

    /** With driver statistics and pause parameters (the driver name stays the sysfs one, as snapshots keep it). */
    public NetdevInfo withStats(Map<String, Long> s, PauseParams p) {
        return new NetdevInfo(name, mtu, operstate, carrier, speedMbps, type, driver,
                Counters.copy(s), p, dcb, trust, trustSource, ecnNp, ecnRp, carrierChanges);
    }

    public NetdevInfo withDcb(DcbState d, String tr, String trSource) {
        return new NetdevInfo(name, mtu, operstate, carrier, speedMbps, type, driver, stats, pause, d, tr, trSource, ecnNp, ecnRp, carrierChanges);
    }

    public boolean ethernet() {
        return type != null && type == 1;
    }

    /**
     * The priorities with PFC on and what says so: {@code "dcb"} (DCB netlink or its side-car) or
     * {@code "ethtool"} (the driver's statistics prove it, {@link DriverStats#pfcEnabled}); empty
     * when neither is known or the netdev has no DCB support.
     */
    public Optional<Pfc> pfc() {
        if (dcb != null) {
            return dcb.supported() ? Optional.of(new Pfc(dcb.pfcEnabled(), "dcb")) : Optional.empty();
        }
        // an IPoIB netdev has no PFC; mlx5's IPoIB statistics prove nothing about it
        return ethernet() ? DriverStats.pfcEnabled(driver, stats).map(on -> new Pfc(on, "ethtool")) : Optional.empty();
    }

    /** PFC-enabled priorities and their source ({@link #pfc()}). */
    public record Pfc(List<Integer> enabled, String source) {
    }

    /**
     * Whether 802.3x global pause is on (either direction): ETHTOOL_GPAUSEPARAM when read, else what
     * the driver's statistics prove ({@link DriverStats#globalPauseOn}); empty when unknown.
     */
    public Optional<Boolean> globalPause() {
        if (pause != null) {
            return Optional.of(pause.rx() || pause.tx());
        }
        return ethernet() ? DriverStats.globalPauseOn(driver, stats) : Optional.empty();
    }
}
