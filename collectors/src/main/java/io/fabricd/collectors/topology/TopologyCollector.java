package io.fabricd.collectors.topology;

import io.fabricd.collectors.CollectContext;
import io.fabricd.collectors.Collector;
import io.fabricd.collectors.model.GpuNicPath;
import io.fabricd.collectors.model.PciFunction;
import io.fabricd.collectors.model.RdmaDevice;
import io.fabricd.collectors.source.HostReadException;
import java.util.ArrayList;
import java.util.Collections;
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
public final class TopologyCollector implements Collector {
    static final Pattern BDF = Pattern.compile("^[0-9a-fA-F]{4,}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\\.[0-7]$");
    static final String NVIDIA = "0x10de";

    @Override
    public String name() {
        return "topology";
    }

    @Override
    public List<String> needs() {
        return List.of("rdma");
    }

    /** A function read on every collection: its kept identity and the paths of its current link, built once. */
    private record Planned(String addr, String kind, String path, Identity id, String speedPath, String widthPath) {
    }

    /**
     * The functions of interest, the bridges above them and every GPU-NIC path class: all from kept
     * facts (resolved paths, identities, NUMA nodes), so kept as one group; a collection
     * reads only the current link speed and width of each function.
     */
    private record Layout(List<Planned> functions, List<GpuNicPath> paths) {
    }

    @Override
    public void collect(CollectContext ctx) {
        List<String> bus = ctx.listOptional("sys/bus/pci/devices");
        ctx.hardware("sys/bus/pci/devices", bus);
        // the GPUs and NVSwitches among the bus's functions: ids kept, and a changed listing drops them
        Map<String, String> nvidia = ctx.stableGroup("pci kinds", c -> nvidiaKinds(c, bus));
        Map<String, String> nicOf = new LinkedHashMap<>(); // device name -> nic address
        for (RdmaDevice d : ctx.model().devices()) {
            if (d.pciAddress() != null) {
                nicOf.put(d.name(), d.pciAddress());
            }
        }
        Layout layout = ctx.stableGroup("pci layout:" + nicOf, c -> layout(c, nvidia, nicOf));
        for (Planned f : layout.functions()) {
            Long speed = ctx.optional(f.speedPath()).map(TopologyCollector::transfers).orElse(null);
            Integer width = ctx.optional(f.widthPath()).map(TopologyCollector::parseInt).orElse(null);
            Identity id = f.id();
            ctx.model().addPci(new PciFunction(f.addr(), f.kind(), f.path(), id.vendor(), id.device(), id.cls(), id.numa(),
                    speed, width, id.maxSpeed(), id.maxWidth(), id.driver()));
        }
        layout.paths().forEach(ctx.model()::addPath);
    }

    private static Layout layout(CollectContext ctx, Map<String, String> nvidia, Map<String, String> nicOf) {
        Map<String, String> kinds = new LinkedHashMap<>(nvidia); // address -> kind, for the devices of interest
        for (String nic : nicOf.values()) {
            kinds.putIfAbsent(nic, "nic");
        }
        Map<String, String> realPaths = new LinkedHashMap<>();
        Map<String, Planned> functions = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : kinds.entrySet()) {
            String real;
            try {
                real = ctx.stableRealPath("sys/bus/pci/devices/" + e.getKey());
            } catch (HostReadException ex) {
                ctx.error(ex);
                continue;
            }
            realPaths.put(e.getKey(), real);
            functions.put(e.getKey(), planned(ctx, e.getKey(), e.getValue(), real));
            // the bridges above it
            List<String> parts = components(real);
            StringBuilder p = new StringBuilder("sys/devices/" + parts.get(0));
            for (int i = 1; i < parts.size() - 1; i++) {
                p.append('/').append(parts.get(i));
                if (!functions.containsKey(parts.get(i))) {
                    functions.put(parts.get(i), planned(ctx, parts.get(i), "bridge", p.toString()));
                }
            }
        }
        List<GpuNicPath> paths = new ArrayList<>();
        for (Map.Entry<String, String> gpu : kinds.entrySet()) {
            if (!gpu.getValue().equals("gpu") || !realPaths.containsKey(gpu.getKey())) {
                continue;
            }
            for (Map.Entry<String, String> nic : nicOf.entrySet()) {
                if (!realPaths.containsKey(nic.getValue())) {
                    continue;
                }
                paths.add(classify(gpu.getKey(), nic.getKey(), realPaths.get(gpu.getKey()), realPaths.get(nic.getValue()),
                        functions.get(gpu.getKey()).id().numa(), functions.get(nic.getValue()).id().numa()));
            }
        }
        return new Layout(List.copyOf(functions.values()), List.copyOf(paths));
    }

    private static Planned planned(CollectContext ctx, String addr, String kind, String path) {
        return new Planned(addr, kind, path, identity(ctx, path), path + "/current_link_speed", path + "/current_link_width");
    }

    private static Map<String, String> nvidiaKinds(CollectContext ctx, List<String> bus) {
        Map<String, String> kinds = new LinkedHashMap<>();
        for (String bdf : bus) {
            String base = "sys/bus/pci/devices/" + bdf;
            String vendor = ctx.stable(base + "/vendor").map(String::strip).orElse("");
            if (!vendor.equalsIgnoreCase(NVIDIA)) {
                continue;
            }
            String cls = ctx.stable(base + "/class").map(String::strip).orElse("");
            String kind = cls.startsWith("0x0302") || cls.startsWith("0x0300") ? "gpu"
                    : cls.startsWith("0x0680") ? "nvswitch" : null;
            if (kind != null) {
                kinds.put(bdf, kind);
            }
        }
        return Collections.unmodifiableMap(kinds);
    }

    /** "sys/devices/pci0000:15/0000:15:01.0/..." -> ["pci0000:15", "0000:15:01.0", ...] (BDF components only after the root). */
    static List<String> components(String real) {
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
        int common = 0;
        while (common + 1 < g.size() - 1 && common + 1 < n.size() - 1 && g.get(common + 1).equals(n.get(common + 1))) {
            common++;
        }
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
        int common = 0;
        while (common + 1 < a.size() - 1 && common + 1 < b.size() - 1 && a.get(common + 1).equals(b.get(common + 1))) {
            common++;
        }
        List<String> out = new ArrayList<>(a.subList(common + 1, a.size() - 1));
        out.addAll(b.subList(common + 1, b.size() - 1));
        return out;
    }

    /** The bridges above a function up to its root port, nearest first, from its resolved path. */
    public static List<String> bridgesAbove(String path) {
        List<String> c = components(path);
        List<String> out = new ArrayList<>(c.subList(1, c.size() - 1));
        Collections.reverse(out);
        return out;
    }

    /** What a function says about itself that does not change while it stays: kept as one group. */
    private record Identity(String vendor, String device, String cls, Integer numa, Long maxSpeed, Integer maxWidth, String driver) {
    }

    private static Identity identity(CollectContext ctx, String path) {
        String vendor = ctx.stable(path + "/vendor").map(String::strip).orElse(null);
        String device = ctx.stable(path + "/device").map(String::strip).orElse(null);
        String cls = ctx.stable(path + "/class").map(String::strip).orElse(null);
        Integer numa = ctx.stable(path + "/numa_node").map(s -> parseInt(s)).orElse(null);
        Long maxSpeed = ctx.stable(path + "/max_link_speed").map(TopologyCollector::transfers).orElse(null);
        Integer maxWidth = ctx.stable(path + "/max_link_width").map(TopologyCollector::parseInt).orElse(null);
        int slash = path.lastIndexOf('/');
        String parent = path.substring(0, slash);
        if (BDF.matcher(parent.substring(parent.lastIndexOf('/') + 1)).matches()) {
            // the link's best is what both ends support (a Gen5 card in a Gen4 slot is not degraded);
            // what the device itself does not report stays unknown, never the upstream port's
            Long upSpeed = ctx.stable(parent + "/max_link_speed").map(TopologyCollector::transfers).orElse(null);
            Integer upWidth = ctx.stable(parent + "/max_link_width").map(TopologyCollector::parseInt).orElse(null);
            maxSpeed = maxSpeed == null ? null : min(maxSpeed, upSpeed);
            maxWidth = maxWidth == null ? null : min(maxWidth, upWidth);
        }
        String driver = ctx.stableLinkName(path + "/driver");
        return new Identity(vendor, device, cls, numa, maxSpeed, maxWidth, driver);
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
