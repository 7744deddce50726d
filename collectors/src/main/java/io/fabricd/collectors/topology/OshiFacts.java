package io.fabricd.collectors.topology;

import io.fabricd.model.HostFacts;
import java.util.TreeMap;
import oshi.SystemInfo;
import oshi.hardware.CentralProcessor;
import oshi.hardware.HardwareAbstractionLayer;

/**
 * Host facts of the running host from OSHI (native access at the edge): kernel release, memory,
 * logical CPUs per NUMA node. They do not change while fabricd runs, so each instance (one per
 * {@link HostFactsCollector}, which lives as long as its collection) reads them once.
 */
final class OshiFacts {
    private volatile HostFacts cached;

    HostFacts read() {
        HostFacts f = cached;
        if (f == null) {
            SystemInfo si = new SystemInfo();
            HardwareAbstractionLayer hw = si.getHardware();
            TreeMap<Integer, Integer> numa = new TreeMap<>();
            for (CentralProcessor.LogicalProcessor lp : hw.getProcessor().getLogicalProcessors()) {
                numa.merge(lp.getNumaNode(), 1, Integer::sum);
            }
            String kernel = si.getOperatingSystem().getVersionInfo().getBuildNumber();
            long boot = si.getOperatingSystem().getSystemBootTime();
            f = new HostFacts(kernel, hw.getMemory().getTotal(), numa, boot > 0 ? boot : null);
            cached = f;
        }
        return f;
    }
}
