package io.fabricd.model.metrics;

import static io.fabricd.model.metrics.MetricFamily.counter;
import static io.fabricd.model.metrics.MetricFamily.gauge;

/** The families of the netdevs bound to RDMA ports: state, DCB/PFC, pause, per-priority traffic and drops, physical layer. */
public final class NetdevMetrics {
    private NetdevMetrics() {
    }

    public static final MetricFamily MTU = gauge("fabric_netdev_mtu_bytes", "bytes", "MTU of a netdev bound to an RDMA port.", "netdev");
    public static final MetricFamily UP = gauge("fabric_netdev_up", null, "1 when the netdev's operstate is up.", "netdev");
    public static final MetricFamily CARRIER_CHANGES = counter("fabric_netdev_carrier_changes", null,
            "Times the netdev's carrier went up or down (sysfs carrier_changes): a flap between two scrapes shows here.", "netdev");
    public static final MetricFamily SPEED = gauge("fabric_netdev_speed_bytes_per_second", "bytes_per_second",
            "Netdev link speed (sysfs speed, Mb/s x 125000).", "netdev");
    public static final MetricFamily INFO = gauge("fabric_netdev_info", null,
            "One per RDMA netdev: type, driver, trust mode; value 1.", "netdev", "type", "driver", "trust");
    public static final MetricFamily PFC_ENABLED = gauge("fabric_pfc_enabled", null,
            "1 when PFC is enabled on the priority (DCB IEEE pfc_en, or what mlx5's statistics prove when DCB is not known).",
            "netdev", "priority");
    public static final MetricFamily DCB_SUPPORTED = gauge("fabric_dcb_supported", null,
            "1 when the netdev answers DCB netlink, 0 when it has no DCB support (veth, virtio); absent when not known.", "netdev");
    public static final MetricFamily PFC_PAUSE_FRAMES = counter("fabric_pfc_pause_frames", null,
            "PFC pause frames per priority and direction (ethtool rx/tx_prioN_pause, rx/tx_pfc_ena_frames_priN, else DCB "
                    + "indications/requests).", "netdev", "priority", "direction");
    public static final MetricFamily PFC_PAUSE_SECONDS = counter("fabric_pfc_pause_seconds", "seconds",
            "Time paused per priority and direction (ethtool rx/tx_prioN_pause_duration, microseconds / 1e6).",
            "netdev", "priority", "direction");
    public static final MetricFamily GLOBAL_PAUSE_FRAMES = counter("fabric_global_pause_frames", null,
            "802.3x global pause frames by direction (ethtool rx/tx_global_pause, rx/tx_pause_frames, link_xoff_rx/tx).",
            "netdev", "direction");
    public static final MetricFamily GLOBAL_PAUSE_SECONDS = counter("fabric_global_pause_seconds", "seconds",
            "Time paused by 802.3x global pause by direction (ethtool rx/tx_global_pause_duration, microseconds / 1e6).",
            "netdev", "direction");
    public static final MetricFamily PAUSE_CONTROL_FRAMES = counter("fabric_netdev_pause_control_frames", null,
            "Every MAC-control pause frame, PFC and global alike, by direction (ethtool rx/tx_pause_ctrl_phy).", "netdev", "direction");
    public static final MetricFamily PRIORITY_BUFFER_DISCARDS = counter("fabric_netdev_priority_buffer_discards", null,
            "Received packets of a priority dropped because its buffer was full (ethtool rx_prioN_buf_discard): loss on a lossless class.",
            "netdev", "priority");
    public static final MetricFamily PRIORITY_CONGESTION_DISCARDS = counter("fabric_netdev_priority_congestion_discards", null,
            "Received packets of a priority dropped by the NIC's congestion handling (ethtool rx_prioN_cong_discard).",
            "netdev", "priority");
    public static final MetricFamily PRIORITY_ECN_MARKED = counter("fabric_netdev_priority_ecn_marked_packets", null,
            "Received packets of a priority the NIC marked ECN CE (ethtool rx_prioN_marked).", "netdev", "priority");
    public static final MetricFamily PHY_ERRORS = counter("fabric_netdev_phy_errors", null,
            "Physical-layer receive errors by type: crc (rx_crc_errors_phy, rx_fcs_err_frames), symbol (rx_symbol_err_phy), pcs_symbol.",
            "netdev", "type");
    public static final MetricFamily PHY_LANE_ERRORS = counter("fabric_netdev_phy_lane_errors", null,
            "Physical-layer receive errors per lane (ethtool rx_err_lane_N_phy).", "netdev", "lane");
    public static final MetricFamily FEC_CORRECTED = counter("fabric_netdev_fec_corrected", null,
            "Bits the forward error correction repaired (ethtool rx_corrected_bits_phy, rx_corrected_bits).", "netdev");
    public static final MetricFamily LINK_DOWN_EVENTS = counter("fabric_netdev_link_down_events", null,
            "Times the physical link went down (ethtool link_down_events_phy, link_down_events).", "netdev");
    public static final MetricFamily PRIORITY_BYTES = counter("fabric_netdev_priority_bytes", "bytes",
            "Bytes per 802.1p priority and direction (ethtool rx/tx_prioN_bytes).", "netdev", "priority", "direction");
    public static final MetricFamily PRIORITY_PACKETS = counter("fabric_netdev_priority_packets", null,
            "Packets per 802.1p priority and direction (ethtool rx/tx_prioN_packets).", "netdev", "priority", "direction");
    public static final MetricFamily PRIORITY_DISCARDS = counter("fabric_netdev_priority_discards", null,
            "Received packets discarded per priority (ethtool rx_prioN_discards).", "netdev", "priority");
    public static final MetricFamily DISCARDS = counter("fabric_netdev_discards", null,
            "NIC drops by ethtool statistic: rx_discards_phy (no buffer: lossy RoCE), tx_discards_phy, rx_out_of_buffer.",
            "netdev", "stat");
    public static final MetricFamily PFC_STORM_EVENTS = counter("fabric_pfc_storm_events", null,
            "PFC storm watchdog events (ethtool tx_pause_storm_warning_events / _error_events).", "netdev", "level");
    public static final MetricFamily ROCE_VPORT_BYTES = counter("fabric_roce_vport_bytes", "bytes",
            "RoCE bytes of this PCI function by direction (ethtool rx/tx_vport_rdma_unicast_bytes + multicast).", "netdev", "direction");
    public static final MetricFamily STAT = counter("fabric_netdev_stat", null,
            "Every ethtool statistic of RDMA netdevs (opt-in: netdev.all_stats).", "netdev", "stat");
    public static final MetricFamily GLOBAL_PAUSE_ENABLED = gauge("fabric_global_pause_enabled", null,
            "1 when 802.3x global pause is on for the direction (ETHTOOL_GPAUSEPARAM; mlx5's statistics when it was not read).",
            "netdev", "direction");
    public static final MetricFamily ROCE_ECN_ENABLED = gauge("fabric_roce_ecn_enabled", null,
            "MLNX_OFED ECN knob ecn/roce_np|roce_rp/enable/<prio>: 1 on, 0 off.", "netdev", "point", "priority");
}
