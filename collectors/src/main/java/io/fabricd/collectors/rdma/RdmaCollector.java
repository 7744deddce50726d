package io.fabricd.collectors.rdma;

import io.fabricd.collectors.CollectContext;
import io.fabricd.collectors.Collector;
import io.fabricd.collectors.HostCollection;
import io.fabricd.collectors.model.Counters;
import io.fabricd.collectors.model.Gid;
import io.fabricd.collectors.model.LinkRate;
import io.fabricd.collectors.model.PortState;
import io.fabricd.collectors.model.RdmaDevice;
import io.fabricd.collectors.model.RdmaPort;
import io.fabricd.collectors.source.HostReadException;
import io.fabricd.collectors.source.HostSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Every RDMA device and port of {@code sys/class/infiniband} (facts §1): identity, state, rate,
 * LID, every {@code counters/} and {@code hw_counters/} file under its raw name, the GID table.
 * A file, port or device that fails degrades only itself.
 */
public final class RdmaCollector implements Collector {
    static final String CLASS = "sys/class/infiniband";
    private static final Pattern PCI_BDF = Pattern.compile("^[0-9a-fA-F]{4,}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\\.[0-7]$");
    private static final String ZERO_GID = "0000:0000:0000:0000:0000:0000:0000:0000";

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
                ctx.error(e.path(), HostCollection.FATAL + e.errno());
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

    private RdmaDevice device(CollectContext ctx, String dev) {
        String base = HostSource.join(CLASS, dev);
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
        SortedMap<String, Long> devHw = counterDir(ctx, base + "/hw_counters", true);
        List<RdmaPort> ports = new ArrayList<>();
        List<String> portNames = new ArrayList<>(ctx.stableListOptional(base + "/ports"));
        if (portNames.isEmpty() && !ctx.source().exists(base + "/ports")) {
            ctx.error(base + "/ports", "ENOENT");
        }
        portNames.sort(Comparator.comparingInt(RdmaCollector::portNumber));
        String parent = ctx.stable(base + "/parent").map(String::strip).filter(s -> !s.isEmpty()).orElse(null);
        List<String> pciNetdevs = ctx.stableExists(base + "/device/net") ? ctx.listOptional(base + "/device/net") : List.of();
        for (String p : portNames) {
            int n = portNumber(p);
            if (n <= 0) {
                ctx.error(base + "/ports/" + p, "not a port number");
                continue;
            }
            ports.add(port(ctx, dev, base + "/ports/" + p, n, parent, pciNetdevs));
        }
        return new RdmaDevice(dev,
                ctx.stableRequired(base + "/node_guid").map(String::strip).orElse(null),
                ctx.stable(base + "/sys_image_guid").map(String::strip).orElse(null),
                ctx.stableRequired(base + "/node_type").map(String::strip).orElse(null),
                ctx.stable(base + "/fw_ver").map(String::strip).orElse(null),
                ctx.stable(base + "/hca_type").map(String::strip).orElse(null),
                ctx.stable(base + "/board_id").map(String::strip).orElse(null),
                pci, numa, parent, devHw, ports);
    }

    private static int portNumber(String name) {
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

    private RdmaPort port(CollectContext ctx, String dev, String base, int n, String parent, List<String> pciNetdevs) {
        PortState state = ctx.required(base + "/state").map(s -> state(ctx, base + "/state", s)).orElse(null);
        PortState phys = ctx.required(base + "/phys_state").map(s -> state(ctx, base + "/phys_state", s)).orElse(null);
        LinkRate rate = ctx.required(base + "/rate").map(s -> {
            LinkRate r = LinkRate.parse(s);
            if (r == null) {
                ctx.error(base + "/rate", "not a rate: '" + abbreviate(s) + "'");
            }
            return r;
        }).orElse(null);
        String linkLayer = ctx.stableRequired(base + "/link_layer").map(String::strip).orElse(null);
        Integer lid = ctx.optional(base + "/lid").map(s -> parseHex(ctx, base + "/lid", s)).orElse(null);
        Integer smLid = ctx.optional(base + "/sm_lid").map(s -> parseHex(ctx, base + "/sm_lid", s)).orElse(null);

        SortedMap<String, Long> counters = counterDir(ctx, base + "/counters", false);
        TreeSet<String> saturated = new TreeSet<>();
        counters.forEach((k, v) -> {
            if (CounterWidths.saturated(k, v, counters)) {
                saturated.add(k);
            }
        });
        SortedMap<String, Long> hw = counterDir(ctx, base + "/hw_counters", true);
        List<Gid> gids = gids(ctx, base);
        String netdev = gids.stream().map(Gid::netdev).filter(x -> x != null && !x.isEmpty()).findFirst()
                .orElse(parent != null ? parent : pciNetdevs.size() == 1 ? pciNetdevs.get(0) : null);
        if (netdev == null && pciNetdevs.size() > 1 && n - 1 < pciNetdevs.size()) {
            netdev = pciNetdevs.get(n - 1);
        }
        return new RdmaPort(dev, n, state, phys, rate, linkLayer, lid, smLid, counters, saturated, hw, gids, netdev);
    }

    private static PortState state(CollectContext ctx, String path, String s) {
        PortState st = PortState.parse(s);
        if (st == null) {
            ctx.error(path, "not a state: '" + abbreviate(s) + "'");
        }
        return st;
    }

    /**
     * Every file of a counter directory, raw names, unsigned values. {@code lifespan} in
     * hw_counters/ is the driver's cache time in milliseconds, not a counter, and is left out.
     */
    private static SortedMap<String, Long> counterDir(CollectContext ctx, String dir, boolean hw) {
        SortedMap<String, Long> out = new TreeMap<>();
        // the names are the driver's: kept with the hardware's identity, the values read every time
        List<String> names = new ArrayList<>(ctx.stableListOptional(dir));
        if (hw) {
            names.remove("lifespan");
        }
        // one batch per folder: the live host reads it in one bounded task, not one hand-off per file
        java.util.Map<String, Object> texts = ctx.source().readAll(dir, names);
        for (String name : names) {
            Object text = texts.get(name);
            if (text instanceof HostReadException e) {
                if (!e.isMissing()) {
                    ctx.error(e);
                }
                continue;
            }
            if (!(text instanceof String s)) {
                continue;
            }
            Long v = Counters.parse(s);
            if (v == null) {
                ctx.error(dir + "/" + name, s.isBlank() ? "empty" : "not a counter: '" + abbreviate(s) + "'");
                continue;
            }
            out.put(name, v);
        }
        return out;
    }

    /**
     * The port's GID table. A full scan (every slot; a RoCE table has 255 or more, most of them
     * zero) runs with the identity refresh; in between, only the slots that scan found populated
     * are read (a changed or cleared GID shows at once, a GID in a new slot within
     * {@code collection.identity_refresh}), and a slot's type and netdev are read again only when
     * its GID changes.
     */
    private static List<Gid> gids(CollectContext ctx, String base) {
        // the table's size is the driver's: kept, and a failing listing reported on every collection
        List<String> table = ctx.stableListOptional(base + "/gids");
        List<java.util.Map<String, Object>> scan = new ArrayList<>(1);
        List<String> slots = ctx.derived("gid-slots:" + base, () -> populatedSlots(ctx, base, table, scan));
        java.util.Map<String, Object> gids = scan.isEmpty() ? ctx.source().readAll(base + "/gids", slots) : scan.get(0);
        List<Gid> out = new ArrayList<>();
        List<String> fresh = new ArrayList<>();
        for (String i : slots) {
            Object g = gids.get(i);
            if (g instanceof HostReadException e) {
                if (!e.isMissing()) {
                    ctx.error(e);
                }
            } else if (g instanceof String s && populated(s) && !ctx.isDerived(attrsKey(base, i, s))) {
                fresh.add(i);
            }
        }
        // gid_attrs of empty slots fail with EINVAL by design: read only the populated ones
        java.util.Map<String, Object> types = fresh.isEmpty() ? java.util.Map.of() : ctx.source().readAll(base + "/gid_attrs/types", fresh);
        java.util.Map<String, Object> ndevs = fresh.isEmpty() ? java.util.Map.of() : ctx.source().readAll(base + "/gid_attrs/ndevs", fresh);
        for (String i : slots) {
            if (!(gids.get(i) instanceof String s) || !populated(s)) {
                continue;
            }
            // {type or its failure, netdev}; IB GIDs have no netdev: that read fails by design
            Object[] attrs = ctx.derived(attrsKey(base, i, s), () -> new Object[] {
                types.get(i) instanceof String t ? t.strip() : types.get(i),
                ndevs.get(i) instanceof String n ? n.strip() : null});
            String type = null;
            if (attrs[0] instanceof String t) {
                type = t;
            } else if (attrs[0] instanceof HostReadException e && !e.isMissing()) {
                ctx.error(e);
            }
            out.add(new Gid(portNumber(i), s.strip(), type, (String) attrs[1]));
        }
        return out;
    }

    private static String attrsKey(String base, String slot, String gid) {
        return "gid-attrs:" + base + "/" + slot + "=" + gid.strip();
    }

    private static boolean populated(String gid) {
        String s = gid.strip();
        return !s.isEmpty() && !s.equals(ZERO_GID);
    }

    /**
     * Every slot of the table read once: the indices of the populated ones and of those whose read
     * failed (so the failure is reported on every collection), in slot order. The texts go to
     * {@code scan}, so the collection that scans does not read them twice.
     */
    private static List<String> populatedSlots(CollectContext ctx, String base, List<String> table,
                                               List<java.util.Map<String, Object>> scan) {
        List<String> idx = new ArrayList<>(table);
        idx.removeIf(s -> portNumber(s) < 0);
        idx.sort(Comparator.comparingInt(RdmaCollector::portNumber));
        java.util.Map<String, Object> gids = ctx.source().readAll(base + "/gids", idx);
        scan.add(gids);
        List<String> slots = new ArrayList<>();
        for (String i : idx) {
            Object g = gids.get(i);
            if (g instanceof String s ? populated(s) : g instanceof HostReadException e && !e.isMissing()) {
                slots.add(i);
            }
        }
        return List.copyOf(slots);
    }
}
