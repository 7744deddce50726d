package io.fabricd.collectors.topology;

import io.fabricd.collectors.CollectContext;
import io.fabricd.collectors.Slices;
import io.fabricd.collectors.Stage;
import io.fabricd.collectors.kernel.HostReadException;
import io.fabricd.collectors.rdma.RdmaSlice;
import io.fabricd.model.GpuNicPath;
import io.fabricd.model.PciFunction;
import io.fabricd.model.PciPaths;
import io.fabricd.model.RdmaDevice;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * PCIe and NUMA topology of RDMA NICs, NVIDIA GPUs and NVSwitches (docs/spec/host-facts.md §4): every such function
 * and the bridges above it, from resolved sys/devices paths, with link speed and width (the
 * effective max taking the upstream port into account), and the nvidia-smi path class of every
 * GPU × RDMA device.
 */
public final class TopologyCollector extends Stage.Declared<TopologySlice> {
    static final Pattern BDF = PciPaths.BDF;
    static final String NVIDIA = "0x10de";

    public TopologyCollector() {
        super("topology", TopologySlice.class, RdmaSlice.class);
    }

    @Override
    public TopologySlice collect(CollectContext ctx, Slices in) {
        // address -> kind of the functions of interest: the GPUs and NVSwitches among the bus's, the RDMA NICs
        Map<String, String> kinds = nvidiaKinds(ctx, ctx.listOptional("sys/bus/pci/devices"));
        Map<String, String> nicOf = new LinkedHashMap<>(); // device name -> nic address
        for (RdmaDevice d : in.get(RdmaSlice.class).map(RdmaSlice::devices).orElse(List.of())) {
            if (d.pciAddress() != null) {
                nicOf.put(d.name(), d.pciAddress());
                kinds.putIfAbsent(d.pciAddress(), "nic");
            }
        }
        Map<String, String> realPaths = new LinkedHashMap<>();
        Map<String, PciFunction> functions = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : kinds.entrySet()) {
            String real;
            try {
                real = ctx.source().realPath("sys/bus/pci/devices/" + e.getKey());
            } catch (HostReadException ex) {
                ctx.error(ex);
                continue;
            }
            realPaths.put(e.getKey(), real);
            functions.put(e.getKey(), function(ctx, e.getKey(), e.getValue(), real));
            // the bridges above it
            List<String> parts = PciPaths.components(real);
            StringBuilder p = new StringBuilder("sys/devices/" + parts.get(0));
            for (int i = 1; i < parts.size() - 1; i++) {
                p.append('/').append(parts.get(i));
                if (!functions.containsKey(parts.get(i))) {
                    functions.put(parts.get(i), function(ctx, parts.get(i), "bridge", p.toString()));
                }
            }
        }
        List<GpuNicPath> paths = new ArrayList<>();
        for (Map.Entry<String, String> gpu : kinds.entrySet()) {
            if (!gpu.getValue().equals("gpu") || !realPaths.containsKey(gpu.getKey())) {
                continue;
            }
            for (Map.Entry<String, String> nic : nicOf.entrySet()) {
                if (realPaths.containsKey(nic.getValue())) {
                    paths.add(PciPaths.classify(gpu.getKey(), nic.getKey(), realPaths.get(gpu.getKey()), realPaths.get(nic.getValue()),
                            functions.get(gpu.getKey()).numaNode(), functions.get(nic.getValue()).numaNode()));
                }
            }
        }
        return new TopologySlice(List.copyOf(functions.values()), paths);
    }

    private static Map<String, String> nvidiaKinds(CollectContext ctx, List<String> bus) {
        Map<String, String> kinds = new LinkedHashMap<>();
        for (String bdf : bus) {
            String base = "sys/bus/pci/devices/" + bdf;
            String vendor = ctx.optional(base + "/vendor").map(String::strip).orElse("");
            if (!vendor.equalsIgnoreCase(NVIDIA)) {
                continue;
            }
            String cls = ctx.optional(base + "/class").map(String::strip).orElse("");
            String kind = cls.startsWith("0x0302") || cls.startsWith("0x0300") ? "gpu"
                    : cls.startsWith("0x0680") ? "nvswitch" : null;
            if (kind != null) {
                kinds.put(bdf, kind);
            }
        }
        return kinds;
    }

    /** A function of interest at {@code path}: what it says about itself, and its current link. */
    private static PciFunction function(CollectContext ctx, String addr, String kind, String path) {
        String vendor = ctx.optional(path + "/vendor").map(String::strip).orElse(null);
        String device = ctx.optional(path + "/device").map(String::strip).orElse(null);
        String cls = ctx.optional(path + "/class").map(String::strip).orElse(null);
        Integer numa = ctx.optional(path + "/numa_node").map(s -> parseInt(s)).orElse(null);
        Long maxSpeed = ctx.optional(path + "/max_link_speed").map(TopologyCollector::transfers).orElse(null);
        Integer maxWidth = ctx.optional(path + "/max_link_width").map(TopologyCollector::parseInt).orElse(null);
        int slash = path.lastIndexOf('/');
        String parent = path.substring(0, slash);
        if (BDF.matcher(parent.substring(parent.lastIndexOf('/') + 1)).matches()) {
            // the link's best is what both ends support (a Gen5 card in a Gen4 slot is not degraded);
            // what the device itself does not report stays unknown, never the upstream port's
            Long upSpeed = ctx.optional(parent + "/max_link_speed").map(TopologyCollector::transfers).orElse(null);
            Integer upWidth = ctx.optional(parent + "/max_link_width").map(TopologyCollector::parseInt).orElse(null);
            maxSpeed = maxSpeed == null ? null : min(maxSpeed, upSpeed);
            maxWidth = maxWidth == null ? null : min(maxWidth, upWidth);
        }
        String driver = ctx.linkName(path + "/driver");
        Long speed = ctx.optional(path + "/current_link_speed").map(TopologyCollector::transfers).orElse(null);
        Integer width = ctx.optional(path + "/current_link_width").map(TopologyCollector::parseInt).orElse(null);
        return new PciFunction(addr, kind, path, vendor, device, cls, numa, speed, width, maxSpeed, maxWidth, driver);
    }

    private static <T extends Comparable<T>> T min(T a, T b) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        return a.compareTo(b) <= 0 ? a : b;
    }

    static Integer parseInt(String s) {
        try {
            return Integer.parseInt(s.strip());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** "32.0 GT/s PCIe", "8 GT/s", "2.5 GT/s" -> transfers per second; "Unknown" -> null. */
    public static Long transfers(String s) {
        String t = s.strip();
        int i = t.indexOf(" GT/s");
        if (i <= 0) {
            return null;
        }
        try {
            return Math.round(Double.parseDouble(t.substring(0, i)) * 1e9);
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
