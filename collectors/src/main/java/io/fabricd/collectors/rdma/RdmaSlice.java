package io.fabricd.collectors.rdma;

import io.fabricd.model.RdmaDevice;
import io.fabricd.model.RdmaPort;
import java.util.Comparator;
import java.util.List;

/** The rdma stage's slice: the selected RDMA devices with their ports, sorted by name. */
public record RdmaSlice(List<RdmaDevice> devices) {
    public RdmaSlice {
        devices = devices.stream().sorted(Comparator.comparing(RdmaDevice::name)).toList();
    }

    /** All ports of all devices, in device then port order. */
    public List<RdmaPort> ports() {
        return devices.stream().flatMap(d -> d.ports().stream()).toList();
    }
}
