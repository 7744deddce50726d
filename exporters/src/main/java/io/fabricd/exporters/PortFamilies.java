package io.fabricd.exporters;

import static io.fabricd.model.Counters.toDouble;

import io.fabricd.model.CollectorRun;
import io.fabricd.model.HostModel;
import io.fabricd.model.RdmaDevice;
import io.fabricd.model.RdmaPort;
import io.fabricd.model.CounterWidths;
import io.fabricd.model.TransportCounters;

/** The RDMA port families of docs/spec/interfaces.md, and the per-collector families. */
final class PortFamilies {
    private PortFamilies() {
    }

    static void declare(Families f) {
        f.gauge("fabric_device_info", "One per RDMA device: identity labels (node_exporter's node_infiniband_info and more); value 1.");
        f.gauge("fabric_port_info", "One per RDMA port: identity labels; value 1.");
        f.gauge("fabric_port_up", "1 when the port is ACTIVE and its physical state LinkUp.");
        f.gauge("fabric_port_state_id", "Port logical state as sysfs numbers it (1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE).");
        f.gauge("fabric_port_physical_state_id", "Port physical state as sysfs numbers it (2 Polling, 3 Disabled, 5 LinkUp, ...).");
        f.gauge("fabric_port_rate_bytes_per_second", "Port signalling rate in bytes per second, from sysfs rate.");
        f.counter("fabric_port_transmit_bytes", "Bytes transmitted: counters_ext/port_xmit_data_64 where present, else counters/port_xmit_data, x 4.");
        f.counter("fabric_port_receive_bytes", "Bytes received: counters_ext/port_rcv_data_64 where present, else counters/port_rcv_data, x 4.");
        f.counter("fabric_port_transmit_packets", "Packets transmitted: counters_ext/port_xmit_packets_64 where present, else counters/port_xmit_packets.");
        f.counter("fabric_port_receive_packets", "Packets received: counters_ext/port_rcv_packets_64 where present, else counters/port_rcv_packets.");
        f.counter("fabric_port_pma", "Every file of the port's counters/ and counters_ext/ (the IBTA PMA counters), raw value under its raw name.");
        f.gauge("fabric_port_pma_saturated", "1 when a fixed-width PMA counter sits at the maximum of its width (rates read zero).");
        f.counter("fabric_port_hw_stat", "Every counter of the port's hw_counters/ (driver), raw name; lifespan is left out.");
        f.counter("fabric_device_hw_stat", "Every counter of a device-level hw_counters/ (mlx5 switchdev mode, efa), raw name.");
        f.counter("fabric_port_transport_errors", "RDMA transport failures by type (retries_exceeded, ack_timeout, out_of_sequence, ...) from the driver's hw_counters/ counter.");
        f.gauge("fabric_collector_success", "1 when the collector ran in the latest collection, 0 when it failed.");
        f.gauge("fabric_collector_duration_seconds", "Seconds the collector took in the latest collection.");
        f.gauge("fabric_collector_read_errors", "Paths the collector could not read or parse in the latest collection.");
    }

    static void add(Families f, HostModel m) {
        for (RdmaDevice d : m.devices()) {
            f.add("fabric_device_info", 1, "device", d.name(), "node_guid", d.nodeGuid(), "sys_image_guid", d.sysImageGuid(),
                    "node_type", d.nodeType(), "fw_ver", d.fwVer(), "hca_type", d.hcaType(), "board_id", d.boardId(),
                    "pci", d.pciAddress());
            d.hwCounters().forEach((k, v) -> f.add("fabric_device_hw_stat", toDouble(v), "device", d.name(), "counter", k));
            for (RdmaPort p : d.ports()) {
                addPort(f, d, p);
            }
        }
        for (CollectorRun r : m.collectors()) {
            f.add("fabric_collector_success", r.ok() ? 1 : 0, "collector", r.name());
            f.add("fabric_collector_duration_seconds", r.durationSeconds(), "collector", r.name());
            f.add("fabric_collector_read_errors", r.errors().size(), "collector", r.name());
        }
    }

    private static void addPort(Families f, RdmaDevice d, RdmaPort p) {
        String dev = d.name();
        String port = Integer.toString(p.port());
        f.add("fabric_port_info", 1, "device", dev, "port", port, "link_layer", p.linkLayer(), "netdev", p.netdev(),
                "node_guid", d.nodeGuid(), "pci", d.pciAddress(),
                "numa_node", d.numaNode() == null ? "" : d.numaNode().toString(), "fw_ver", d.fwVer(),
                "hca_type", d.hcaType());
        f.add("fabric_port_up", p.up() ? 1 : 0, "device", dev, "port", port);
        if (p.state() != null) {
            f.add("fabric_port_state_id", p.state().id(), "device", dev, "port", port);
        }
        if (p.physState() != null) {
            f.add("fabric_port_physical_state_id", p.physState().id(), "device", dev, "port", port);
        }
        if (p.rate() != null) {
            f.add("fabric_port_rate_bytes_per_second", p.rate().bytesPerSecond(), "device", dev, "port", port);
        }
        Long v = p.dataWords(true);
        if (v != null) {
            f.add("fabric_port_transmit_bytes", toDouble(v) * 4, "device", dev, "port", port);
        }
        v = p.dataWords(false);
        if (v != null) {
            f.add("fabric_port_receive_bytes", toDouble(v) * 4, "device", dev, "port", port);
        }
        v = p.packets(true);
        if (v != null) {
            f.add("fabric_port_transmit_packets", toDouble(v), "device", dev, "port", port);
        }
        v = p.packets(false);
        if (v != null) {
            f.add("fabric_port_receive_packets", toDouble(v), "device", dev, "port", port);
        }
        p.counters().forEach((k, val) -> {
            f.add("fabric_port_pma", toDouble(val), "device", dev, "port", port, "counter", k);
            if (CounterWidths.width(k, p.counters()) > 0) {
                f.add("fabric_port_pma_saturated", p.isSaturated(k) ? 1 : 0, "device", dev, "port", port, "counter", k);
            }
        });
        p.countersExt().forEach((k, val) -> f.add("fabric_port_pma", toDouble(val), "device", dev, "port", port, "counter", k));
        p.hwCounters().forEach((k, val) -> {
            f.add("fabric_port_hw_stat", toDouble(val), "device", dev, "port", port, "counter", k);
            TransportCounters.Type t = TransportCounters.type(k);
            if (t != null) {
                f.add("fabric_port_transport_errors", toDouble(val), "device", dev, "port", port, "type", t.label(), "counter", k);
            }
        });
    }
}
