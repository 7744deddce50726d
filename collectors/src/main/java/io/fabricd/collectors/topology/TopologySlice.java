package io.fabricd.collectors.topology;

import io.fabricd.model.GpuNicPath;
import io.fabricd.model.PciFunction;
import java.util.Comparator;
import java.util.List;

/** The topology stage's slice: NICs, GPUs, NVSwitches and the bridges above them (by address), and every GPU-NIC path. */
public record TopologySlice(List<PciFunction> pci, List<GpuNicPath> paths) {
    public TopologySlice {
        pci = pci.stream().sorted(Comparator.comparing(PciFunction::address)).toList();
        paths = List.copyOf(paths);
    }
}
