package io.fabricd.model;

import java.util.SortedMap;

/**
 * What the host is: kernel release, memory, and logical CPUs per NUMA node.
 *
 * @param kernel      proc/sys/kernel/osrelease (or the snapshot manifest's kernel)
 * @param memoryBytes proc/meminfo MemTotal; null when unknown
 * @param numaCpus    logical CPUs per NUMA node (sys/devices/system/node/nodeN/cpulist)
 * @param bootTime    when the host booted, seconds since the epoch (proc/stat btime); null when unknown
 */
public record HostFacts(String kernel, Long memoryBytes, SortedMap<Integer, Integer> numaCpus, Long bootTime) {
    public HostFacts {
        numaCpus = Counters.copy(numaCpus);
    }
}
