package io.fabricd.model;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Walks over PCI functions' resolved sysfs paths ("sys/devices/pci0000:15/0000:15:01.0/..."): the
 * bridges between two functions, above one, and nvidia-smi's GPU-NIC path classes. Pure functions of
 * the paths, shared by the topology collector and the PCIe checks.
 */
public final class PciPaths {
    /** A PCI address (domain:bus:device.function) as sysfs names it. */
    public static final Pattern BDF = Pattern.compile("^[0-9a-fA-F]{4,}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\\.[0-7]$");

    private PciPaths() {
    }

    /** "sys/devices/pci0000:15/0000:15:01.0/..." -> ["pci0000:15", "0000:15:01.0", ...] (BDF components only after the root). */
    public static List<String> components(String real) {
        String rest = real.startsWith("sys/devices/") ? real.substring("sys/devices/".length()) : real;
        List<String> out = new ArrayList<>();
        for (String c : rest.split("/")) {
            if (out.isEmpty() || BDF.matcher(c).matches()) {
                out.add(c);
            }
        }
        return out;
    }

    /**
     * nvidia-smi's classes from two resolved paths (docs/spec/host-facts.md §4.2): same host bridge and a common
     * bridge with at most one bridge on either side below it → PIX, more → PXB; same host bridge,
     * different root ports → PHB; different host bridges on one NUMA node → NODE, on two → SYS;
     * a numa_node of -1 there gives no verdict.
     */
    public static GpuNicPath classify(String gpu, String device, String gpuPath, String nicPath, Integer gpuNuma, Integer nicNuma) {
        List<String> g = components(gpuPath);
        List<String> n = components(nicPath);
        if (!g.get(0).equals(n.get(0))) {
            if (gpuNuma == null || nicNuma == null || gpuNuma < 0 || nicNuma < 0) {
                return new GpuNicPath(gpu, device, null, "different host bridges, NUMA node unknown (-1)");
            }
            return gpuNuma.equals(nicNuma)
                    ? new GpuNicPath(gpu, device, "NODE", "different host bridges on NUMA node " + gpuNuma)
                    : new GpuNicPath(gpu, device, "SYS", "NUMA node " + gpuNuma + " to NUMA node " + nicNuma);
        }
        int common = common(g, n);
        if (common == 0) {
            return new GpuNicPath(gpu, device, "PHB", "same host bridge " + g.get(0) + ", different root ports");
        }
        int gpuUp = g.size() - 2 - common; // bridges between the GPU and the common ancestor
        int nicUp = n.size() - 2 - common;
        if (gpuUp <= 1 && nicUp <= 1) {
            return new GpuNicPath(gpu, device, "PIX", "one PCIe switch: common bridge " + g.get(common));
        }
        return new GpuNicPath(gpu, device, "PXB", "several PCIe bridges below " + g.get(common));
    }

    /**
     * The bridges a peer-to-peer transfer between two functions crosses below their lowest common
     * bridge (a switch's downstream ports, or the root ports under one host bridge), from their
     * resolved paths; empty under different host bridges, where the transfer leaves PCIe.
     */
    public static List<String> bridgesBetween(String aPath, String bPath) {
        List<String> a = components(aPath);
        List<String> b = components(bPath);
        if (!a.get(0).equals(b.get(0))) {
            return List.of();
        }
        int common = common(a, b);
        List<String> out = new ArrayList<>(a.subList(common + 1, a.size() - 1));
        out.addAll(b.subList(common + 1, b.size() - 1));
        return out;
    }

    /** How deep two paths under one host bridge share their bridges: the index of their lowest common one (0: the host bridge). */
    private static int common(List<String> a, List<String> b) {
        int common = 0;
        while (common + 1 < a.size() - 1 && common + 1 < b.size() - 1 && a.get(common + 1).equals(b.get(common + 1))) {
            common++;
        }
        return common;
    }

    /** The bridges above a function up to its root port, nearest first, from its resolved path. */
    public static List<String> bridgesAbove(String path) {
        List<String> c = components(path);
        List<String> out = new ArrayList<>(c.subList(1, c.size() - 1));
        Collections.reverse(out);
        return out;
    }
}
