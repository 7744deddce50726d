package io.fabricd.model.metrics;

import static io.fabricd.model.metrics.MetricFamily.counter;
import static io.fabricd.model.metrics.MetricFamily.gauge;

/** The RDMA devices' and ports' families: identity, state, PMA and driver counters, MTU, RoCE congestion, queue pairs. */
public final class PortMetrics {
    private PortMetrics() {
    }

    public static final MetricFamily DEVICE_INFO = gauge("fabric_device_info", null,
            "One per RDMA device: identity labels (node_exporter's node_infiniband_info and more); value 1.",
            "device", "node_guid", "sys_image_guid", "node_type", "fw_ver", "hca_type", "board_id", "pci");
    public static final MetricFamily PORT_INFO = gauge("fabric_port_info", null, "One per RDMA port: identity labels; value 1.",
            "device", "port", "link_layer", "netdev", "node_guid", "pci", "numa_node", "fw_ver", "hca_type");
    public static final MetricFamily UP = gauge("fabric_port_up", null, "1 when the port is ACTIVE and its physical state LinkUp.",
            "device", "port");
    public static final MetricFamily STATE_ID = gauge("fabric_port_state_id", null,
            "Port logical state as sysfs numbers it (1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE).", "device", "port");
    public static final MetricFamily PHYSICAL_STATE_ID = gauge("fabric_port_physical_state_id", null,
            "Port physical state as sysfs numbers it (2 Polling, 3 Disabled, 5 LinkUp, ...).", "device", "port");
    public static final MetricFamily RATE = gauge("fabric_port_rate_bytes_per_second", "bytes_per_second",
            "Port signalling rate in bytes per second, from sysfs rate.", "device", "port");
    public static final MetricFamily TRANSMIT_BYTES = counter("fabric_port_transmit_bytes", "bytes",
            "Bytes transmitted: counters_ext/port_xmit_data_64 where present, else counters/port_xmit_data, x 4.", "device", "port");
    public static final MetricFamily RECEIVE_BYTES = counter("fabric_port_receive_bytes", "bytes",
            "Bytes received: counters_ext/port_rcv_data_64 where present, else counters/port_rcv_data, x 4.", "device", "port");
    public static final MetricFamily TRANSMIT_PACKETS = counter("fabric_port_transmit_packets", null,
            "Packets transmitted: counters_ext/port_xmit_packets_64 where present, else counters/port_xmit_packets.", "device", "port");
    public static final MetricFamily RECEIVE_PACKETS = counter("fabric_port_receive_packets", null,
            "Packets received: counters_ext/port_rcv_packets_64 where present, else counters/port_rcv_packets.", "device", "port");
    public static final MetricFamily PMA = counter("fabric_port_pma", null,
            "Every file of the port's counters/ and counters_ext/ (the IBTA PMA counters), raw value under its raw name.",
            "device", "port", "counter");
    public static final MetricFamily PMA_SATURATED = gauge("fabric_port_pma_saturated", null,
            "1 when a fixed-width PMA counter sits at the maximum of its width (rates read zero).", "device", "port", "counter");
    public static final MetricFamily HW_STAT = counter("fabric_port_hw_stat", null,
            "Every counter of the port's hw_counters/ (driver), raw name; lifespan is left out.", "device", "port", "counter");
    public static final MetricFamily DEVICE_HW_STAT = counter("fabric_device_hw_stat", null,
            "Every counter of a device-level hw_counters/ (mlx5 switchdev mode, efa), raw name.", "device", "counter");
    public static final MetricFamily TRANSPORT_ERRORS = counter("fabric_port_transport_errors", null,
            "RDMA transport failures by type (retries_exceeded, ack_timeout, out_of_sequence, ...) from the driver's hw_counters/ counter.",
            "device", "port", "type", "counter");
    public static final MetricFamily ACTIVE_MTU = gauge("fabric_port_active_mtu_bytes", "bytes",
            "Active MTU of the port (verbs, or derived from the netdev MTU for RoCE; see fabric_port_mtu_derived).", "device", "port");
    public static final MetricFamily MAX_MTU = gauge("fabric_port_max_mtu_bytes", "bytes", "Largest MTU the port supports.",
            "device", "port");
    public static final MetricFamily MTU_DERIVED = gauge("fabric_port_mtu_derived", null,
            "1 when the active MTU was derived from the netdev MTU because verbs could not answer.", "device", "port");
    public static final MetricFamily ROCE_ECN_MARKED = counter("fabric_roce_ecn_marked_packets", null,
            "RoCEv2 packets received with ECN CE (hw_counters np_ecn_marked_roce_packets).", "device", "port");
    public static final MetricFamily ROCE_CNP_SENT = counter("fabric_roce_cnp_sent", null,
            "CNPs sent by the notification point (hw_counters np_cnp_sent).", "device", "port");
    public static final MetricFamily ROCE_CNP_HANDLED = counter("fabric_roce_cnp_handled", null,
            "CNPs handled by the reaction point (hw_counters rp_cnp_handled).", "device", "port");
    public static final MetricFamily ROCE_CNP_IGNORED = counter("fabric_roce_cnp_ignored", null,
            "CNPs ignored by the reaction point (hw_counters rp_cnp_ignored).", "device", "port");
    public static final MetricFamily QUEUE_PAIRS = gauge("fabric_queue_pairs", null,
            "Queue pairs visible to the agent by state (RDMA netlink; PID-namespace filtered).", "device", "state");
    public static final MetricFamily MAX_QP = gauge("fabric_device_max_qp", null,
            "The device's queue pair limit (ibv_query_device max_qp).", "device");
}
