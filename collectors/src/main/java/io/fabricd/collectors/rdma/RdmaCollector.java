package io.fabricd.collectors.rdma;

import io.fabricd.collectors.CollectContext;
import io.fabricd.collectors.Collector;
import io.fabricd.model.CounterWidths;
import io.fabricd.model.Gid;
import io.fabricd.model.PciPaths;
import io.fabricd.model.LinkRate;
import io.fabricd.model.PortState;
import io.fabricd.model.RdmaDevice;
import io.fabricd.model.RdmaPort;
import io.fabricd.collectors.source.HostReadException;
import io.fabricd.collectors.source.HostSource;
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
public final class RdmaCollector implements Collector {
    static final String CLASS = "sys/class/infiniband";
    private static final Pattern PCI_BDF = PciPaths.BDF;

    @Override
    public String name() {
        return "rdma";
    }

    @Override
    public void collect(CollectContext ctx) {
        HostSource src = ctx.source();
        List<String> names;
        try {
            names = src.list(CLASS);
        } catch (HostReadException e) {
            if (!e.isMissing()) {
                ctx.error(e.path(), CollectContext.FATAL + e.errno());
            }
            return; // no RDMA stack on this host: zero devices, not a failure
        }
        ctx.hardware(CLASS, names);
        for (String dev : names) {
            if (!ctx.config().deviceSelected(dev)) {
                continue;
            }
            String base = HostSource.join(CLASS, dev);
            if (!ctx.stableReadable(base)) {
                continue; // a dangling, looping, escaping or unreadable device folder: one error, no device
            }
            ctx.model().addDevice(device(ctx, dev));
        }
    }

    /**
     * What a device says about itself that stays while the hardware does, and the paths of the files
     * read on every collection, built once: kept as one group ({@link CollectContext#stableGroup}), so
     * a collection looks up one key per device instead of one per fact, and every read of a kept path
     * hands the source the same String (its lookups then compare by identity).
     */
    private record DeviceFacts(String pci, Integer numa, String parent, String netDir, String nodeGuid,
                               String sysImageGuid, String nodeType, String fwVer, String hcaType, String boardId,
                               String hwDir, List<String> hwNames, List<PortFacts> ports) {
    }

    /** A port's kept facts and paths (see {@link DeviceFacts}). */
    private record PortFacts(int n, String base, String state, String physState, String rate, String lid, String smLid,
                             String linkLayer, String countersDir, List<String> counterNames, String extDir, List<String> extNames,
                             String hwDir, List<String> hwNames) {
    }

    private RdmaDevice device(CollectContext ctx, String dev) {
        String base = HostSource.join(CLASS, dev);
        DeviceFacts f = ctx.stableGroup("rdma:" + dev, c -> facts(c, base));
        SortedMap<String, Long> devHw = CounterDir.read(ctx, f.hwDir(), f.hwNames());
        // the PCI function's netdevs, listed only for a port whose GIDs and parent name none (an IB
        // port's IPoIB netdev); not kept: a rename shows at the next collection
        Supplier<List<String>> pciNetdevs = new Supplier<>() {
            private List<String> listed;

            @Override
            public List<String> get() {
                if (listed == null) {
                    listed = f.netDir() != null ? ctx.listOptional(f.netDir()) : List.of();
                }
                return listed;
            }
        };
        List<RdmaPort> ports = new ArrayList<>(f.ports().size());
        for (PortFacts p : f.ports()) {
            ports.add(port(ctx, dev, p, f.parent(), pciNetdevs));
        }
        return new RdmaDevice(dev, f.nodeGuid(), f.sysImageGuid(), f.nodeType(), f.fwVer(), f.hcaType(), f.boardId(),
                f.pci(), f.numa(), f.parent(), devHw, ports);
    }

    /** The kept part of a device, read with the context's stable reads only. */
    private static DeviceFacts facts(CollectContext ctx, String base) {
        String pci = null;
        Integer numa = null;
        if (ctx.stableExists(base + "/device")) {
            try {
                String real = ctx.stableRealPath(base + "/device");
                String last = real.substring(real.lastIndexOf('/') + 1);
                if (PCI_BDF.matcher(last).matches()) {
                    pci = last;
                }
            } catch (HostReadException e) {
                ctx.error(e);
            }
            numa = ctx.stable(base + "/device/numa_node").map(s -> parseInt(ctx, base + "/device/numa_node", s)).orElse(null);
        }
        String hwDir = base + "/hw_counters";
        List<String> hwNames = CounterDir.names(ctx, hwDir, true);
        List<String> portNames = new ArrayList<>(ctx.stableListOptional(base + "/ports"));
        if (portNames.isEmpty() && !ctx.stableExists(base + "/ports")) {
            ctx.error(base + "/ports", "ENOENT");
        }
        portNames.sort(Comparator.comparingInt(RdmaCollector::portNumber));
        String parent = ctx.stable(base + "/parent").map(String::strip).filter(s -> !s.isEmpty()).orElse(null);
        String netDir = ctx.stableExists(base + "/device/net") ? base + "/device/net" : null;
        List<PortFacts> ports = new ArrayList<>();
        for (String p : portNames) {
            int n = portNumber(p);
            if (n <= 0) {
                ctx.error(base + "/ports/" + p, "not a port number");
                continue;
            }
            String pb = base + "/ports/" + p;
            ports.add(new PortFacts(n, pb, pb + "/state", pb + "/phys_state", pb + "/rate", pb + "/lid", pb + "/sm_lid",
                    ctx.stableRequired(pb + "/link_layer").map(String::strip).orElse(null),
                    pb + "/counters", CounterDir.names(ctx, pb + "/counters", false),
                    pb + "/counters_ext", CounterDir.names(ctx, pb + "/counters_ext", false),
                    pb + "/hw_counters", CounterDir.names(ctx, pb + "/hw_counters", true)));
        }
        // identity files are optional: node_exporter's own fixtures and some drivers' trees lack
        // node_guid or node_type, and an absent file is absence, not a read error
        return new DeviceFacts(pci, numa, parent, netDir,
                ctx.stable(base + "/node_guid").map(String::strip).orElse(null),
                ctx.stable(base + "/sys_image_guid").map(String::strip).orElse(null),
                ctx.stable(base + "/node_type").map(String::strip).orElse(null),
                ctx.stable(base + "/fw_ver").map(String::strip).orElse(null),
                ctx.stable(base + "/hca_type").map(String::strip).orElse(null),
                ctx.stable(base + "/board_id").map(String::strip).orElse(null),
                hwDir, hwNames, List.copyOf(ports));
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

    private RdmaPort port(CollectContext ctx, String dev, PortFacts p, String parent, Supplier<List<String>> netdevs) {
        int n = p.n();
        PortState state = ctx.required(p.state()).map(s -> state(ctx, p.state(), s)).orElse(null);
        PortState phys = ctx.required(p.physState()).map(s -> state(ctx, p.physState(), s)).orElse(null);
        LinkRate rate = ctx.required(p.rate()).map(s -> {
            LinkRate r = LinkRate.parse(s);
            if (r == null) {
                ctx.error(p.rate(), "not a rate: '" + abbreviate(s) + "'");
            }
            return r;
        }).orElse(null);
        Integer lid = ctx.optional(p.lid()).map(s -> parseHex(ctx, p.lid(), s)).orElse(null);
        Integer smLid = ctx.optional(p.smLid()).map(s -> parseHex(ctx, p.smLid(), s)).orElse(null);

        SortedMap<String, Long> counters = CounterDir.read(ctx, p.countersDir(), p.counterNames());
        SortedMap<String, Long> countersExt = CounterDir.read(ctx, p.extDir(), p.extNames());
        TreeSet<String> saturated = new TreeSet<>();
        counters.forEach((k, v) -> {
            if (CounterWidths.saturated(k, v, counters)) {
                saturated.add(k);
            }
        });
        SortedMap<String, Long> hw = CounterDir.read(ctx, p.hwDir(), p.hwNames());
        List<Gid> gids = GidTable.read(ctx, p.base());
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
        return new RdmaPort(dev, n, state, phys, rate, p.linkLayer(), lid, smLid, counters, countersExt, saturated, hw, gids, netdev);
    }

    private static PortState state(CollectContext ctx, String path, String s) {
        PortState st = PortState.parse(s);
        if (st == null) {
            ctx.error(path, "not a state: '" + abbreviate(s) + "'");
        }
        return st;
    }
}
