package io.fabricd.exporters;

import static io.fabricd.model.Counters.toDouble;

import io.fabricd.model.CollectorRun;
import io.fabricd.model.HostModel;
import io.fabricd.model.RdmaDevice;
import io.fabricd.model.RdmaPort;
import io.fabricd.model.CounterWidths;
import io.fabricd.model.TransportCounters;
import io.fabricd.model.metrics.AgentMetrics;
import io.fabricd.model.metrics.PortMetrics;

/** The RDMA port families of docs/spec/interfaces.md, and the per-collector families. */
final class PortFamilies {
    private PortFamilies() {
    }

    static void add(Families f, HostModel m) {
        for (RdmaDevice d : m.devices()) {
            f.add(PortMetrics.DEVICE_INFO, 1, d.name(), d.nodeGuid(), d.sysImageGuid(), d.nodeType(), d.fwVer(), d.hcaType(), d.boardId(), d.pciAddress());
            d.hwCounters().forEach((k, v) -> f.add(PortMetrics.DEVICE_HW_STAT, toDouble(v), d.name(), k));
            for (RdmaPort p : d.ports()) {
                addPort(f, d, p);
            }
        }
        for (CollectorRun r : m.collectors()) {
            f.add(AgentMetrics.COLLECTOR_SUCCESS, r.ok() ? 1 : 0, r.name());
            f.add(AgentMetrics.COLLECTOR_DURATION, r.durationSeconds(), r.name());
            f.add(AgentMetrics.COLLECTOR_READ_ERRORS, r.errors().size(), r.name());
        }
    }

    private static void addPort(Families f, RdmaDevice d, RdmaPort p) {
        String dev = d.name();
        String port = Integer.toString(p.port());
        f.add(PortMetrics.PORT_INFO, 1, dev, port, p.linkLayer(), p.netdev(), d.nodeGuid(), d.pciAddress(), d.numaNode() == null ? "" : d.numaNode().toString(), d.fwVer(), d.hcaType());
        f.add(PortMetrics.UP, p.up() ? 1 : 0, dev, port);
        if (p.state() != null) {
            f.add(PortMetrics.STATE_ID, p.state().id(), dev, port);
        }
        if (p.physState() != null) {
            f.add(PortMetrics.PHYSICAL_STATE_ID, p.physState().id(), dev, port);
        }
        if (p.rate() != null) {
            f.add(PortMetrics.RATE, p.rate().bytesPerSecond(), dev, port);
        }
        Long v = p.dataWords(true);
        if (v != null) {
            f.add(PortMetrics.TRANSMIT_BYTES, toDouble(v) * 4, dev, port);
        }
        v = p.dataWords(false);
        if (v != null) {
            f.add(PortMetrics.RECEIVE_BYTES, toDouble(v) * 4, dev, port);
        }
        f.addCounter(PortMetrics.TRANSMIT_PACKETS, p.packets(true), dev, port);
        f.addCounter(PortMetrics.RECEIVE_PACKETS, p.packets(false), dev, port);
        p.counters().forEach((k, val) -> {
            f.add(PortMetrics.PMA, toDouble(val), dev, port, k);
            if (CounterWidths.width(k, p.counters()) > 0) {
                f.add(PortMetrics.PMA_SATURATED, p.isSaturated(k) ? 1 : 0, dev, port, k);
            }
        });
        p.countersExt().forEach((k, val) -> f.add(PortMetrics.PMA, toDouble(val), dev, port, k));
        p.hwCounters().forEach((k, val) -> {
            f.add(PortMetrics.HW_STAT, toDouble(val), dev, port, k);
            TransportCounters.Type t = TransportCounters.type(k);
            if (t != null) {
                f.add(PortMetrics.TRANSPORT_ERRORS, toDouble(val), dev, port, t.label(), k);
            }
        });
    }
}
