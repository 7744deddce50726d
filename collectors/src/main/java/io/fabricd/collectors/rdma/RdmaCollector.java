package io.fabricd.collectors.rdma;

import io.fabricd.collectors.CollectContext;
import io.fabricd.collectors.Slices;
import io.fabricd.collectors.Stage;
import io.fabricd.collectors.kernel.HostReadException;
import io.fabricd.collectors.source.HostSource;
import io.fabricd.model.CounterWidths;
import io.fabricd.model.Gid;
import io.fabricd.model.LinkRate;
import io.fabricd.model.PciPaths;
import io.fabricd.model.PortState;
import io.fabricd.model.RdmaDevice;
import io.fabricd.model.RdmaPort;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Every RDMA device and port of {@code sys/class/infiniband} (docs/spec/host-facts.md §1): identity, state, rate,
 * LID, every {@code counters/} and {@code hw_counters/} file under its raw name, the GID table.
 * A file, port or device that fails degrades only itself.
 */
public final class RdmaCollector extends Stage.Declared<RdmaSlice> {
    static final String CLASS = "sys/class/infiniband";
    private static final Pattern PCI_BDF = PciPaths.BDF;

    public RdmaCollector() {
        super("rdma", RdmaSlice.class);
    }

    @Override
    public RdmaSlice collect(CollectContext ctx, Slices in) {
        HostSource src = ctx.source();
        List<String> names;
        try {
            names = src.list(CLASS);
        } catch (HostReadException e) {
            if (!e.isMissing()) {
                ctx.error(e.path(), CollectContext.FATAL + e.errno());
            }
            return new RdmaSlice(List.of()); // no RDMA stack on this host: zero devices, not a failure
        }
        List<RdmaDevice> devices = new ArrayList<>();
        for (String dev : names) {
            if (!ctx.config().deviceSelected(dev)) {
                continue;
            }
            String base = HostSource.join(CLASS, dev);
            try {
                src.list(base);
            } catch (HostReadException e) {
                ctx.error(e);
                continue; // a dangling, looping, escaping or unreadable device folder: one error, no device
            }
            devices.add(device(ctx, dev, base));
        }
        return new RdmaSlice(devices);
    }

    private RdmaDevice device(CollectContext ctx, String dev, String base) {
        String pci = null;
        Integer numa = null;
        if (ctx.source().exists(base + "/device")) {
            try {
                String real = ctx.source().realPath(base + "/device");
                String last = real.substring(real.lastIndexOf('/') + 1);
                if (PCI_BDF.matcher(last).matches()) {
                    pci = last;
                }
            } catch (HostReadException e) {
                ctx.error(e);
            }
            numa = ctx.optional(base + "/device/numa_node").map(s -> parseInt(ctx, base + "/device/numa_node", s)).orElse(null);
        }
        SortedMap<String, Long> devHw = CounterDir.read(ctx, base + "/hw_counters", CounterDir.names(ctx, base + "/hw_counters", true));
        List<String> portNames = new ArrayList<>(ctx.listOptional(base + "/ports"));
        if (portNames.isEmpty() && !ctx.source().exists(base + "/ports")) {
            ctx.error(base + "/ports", "ENOENT");
        }
        portNames.sort(Comparator.comparingInt(RdmaCollector::portNumber));
        String parent = ctx.optional(base + "/parent").map(String::strip).filter(s -> !s.isEmpty()).orElse(null);
        // the PCI function's netdevs, listed only for a port whose GIDs and parent name none (an IB
        // port's IPoIB netdev)
        Supplier<List<String>> pciNetdevs = new Supplier<>() {
            private List<String> listed;

            @Override
            public List<String> get() {
                if (listed == null) {
                    listed = ctx.source().exists(base + "/device/net") ? ctx.listOptional(base + "/device/net") : List.of();
                }
                return listed;
            }
        };
        List<RdmaPort> ports = new ArrayList<>(portNames.size());
        for (String p : portNames) {
            int n = portNumber(p);
            if (n <= 0) {
                ctx.error(base + "/ports/" + p, "not a port number");
                continue;
            }
            ports.add(port(ctx, dev, n, base + "/ports/" + p, parent, pciNetdevs));
        }
        // identity files are optional: node_exporter's own fixtures and some drivers' trees lack
        // node_guid or node_type, and an absent file is absence, not a read error
        return new RdmaDevice(dev, stripped(ctx, base + "/node_guid"), stripped(ctx, base + "/sys_image_guid"),
                stripped(ctx, base + "/node_type"), stripped(ctx, base + "/fw_ver"), stripped(ctx, base + "/hca_type"),
                stripped(ctx, base + "/board_id"), pci, numa, parent, devHw, ports);
    }

    private static String stripped(CollectContext ctx, String path) {
        return ctx.optional(path).map(String::strip).orElse(null);
    }

    static int portNumber(String name) {
        try {
            return Integer.parseInt(name);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static Integer parseInt(CollectContext ctx, String path, String s) {
        try {
            return Integer.parseInt(s.strip());
        } catch (NumberFormatException e) {
            ctx.error(path, "not a number: '" + abbreviate(s) + "'");
            return null;
        }
    }

    private static Integer parseHex(CollectContext ctx, String path, String s) {
        String t = s.strip();
        try {
            if (t.startsWith("0x") || t.startsWith("0X")) {
                return Integer.parseUnsignedInt(t.substring(2), 16);
            }
            return Integer.parseInt(t);
        } catch (NumberFormatException e) {
            ctx.error(path, "not a number: '" + abbreviate(s) + "'");
            return null;
        }
    }

    static String abbreviate(String s) {
        String t = s.strip().replace('\0', '?');
        return t.length() > 40 ? t.substring(0, 40) + "..." : t;
    }

    private RdmaPort port(CollectContext ctx, String dev, int n, String base, String parent, Supplier<List<String>> netdevs) {
        PortState state = ctx.required(base + "/state").map(s -> state(ctx, base + "/state", s)).orElse(null);
        PortState phys = ctx.required(base + "/phys_state").map(s -> state(ctx, base + "/phys_state", s)).orElse(null);
        LinkRate rate = ctx.required(base + "/rate").map(s -> {
            LinkRate r = LinkRate.parse(s);
            if (r == null) {
                ctx.error(base + "/rate", "not a rate: '" + abbreviate(s) + "'");
            }
            return r;
        }).orElse(null);
        Integer lid = ctx.optional(base + "/lid").map(s -> parseHex(ctx, base + "/lid", s)).orElse(null);
        Integer smLid = ctx.optional(base + "/sm_lid").map(s -> parseHex(ctx, base + "/sm_lid", s)).orElse(null);
        String linkLayer = ctx.required(base + "/link_layer").map(String::strip).orElse(null);

        SortedMap<String, Long> counters = CounterDir.read(ctx, base + "/counters", CounterDir.names(ctx, base + "/counters", false));
        SortedMap<String, Long> countersExt = CounterDir.read(ctx, base + "/counters_ext",
                CounterDir.names(ctx, base + "/counters_ext", false));
        TreeSet<String> saturated = new TreeSet<>();
        counters.forEach((k, v) -> {
            if (CounterWidths.saturated(k, v, counters)) {
                saturated.add(k);
            }
        });
        SortedMap<String, Long> hw = CounterDir.read(ctx, base + "/hw_counters", CounterDir.names(ctx, base + "/hw_counters", true));
        List<Gid> gids = GidTable.read(ctx, base);
        String netdev = null;
        for (Gid g : gids) {
            if (g.netdev() != null && !g.netdev().isEmpty()) {
                netdev = g.netdev();
                break;
            }
        }
        if (netdev == null) {
            netdev = parent;
        }
        if (netdev == null) {
            List<String> pciNetdevs = netdevs.get();
            if (pciNetdevs.size() == 1) {
                netdev = pciNetdevs.get(0);
            } else if (pciNetdevs.size() > 1 && n - 1 < pciNetdevs.size()) {
                netdev = pciNetdevs.get(n - 1);
            }
        }
        return new RdmaPort(dev, n, state, phys, rate, linkLayer, lid, smLid, counters, countersExt, saturated, hw, gids, netdev);
    }

    private static PortState state(CollectContext ctx, String path, String s) {
        PortState st = PortState.parse(s);
        if (st == null) {
            ctx.error(path, "not a state: '" + abbreviate(s) + "'");
        }
        return st;
    }
}
