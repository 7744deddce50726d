package io.fabricd.collectors.source;

import io.fabricd.collectors.kernel.HostReadException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

/**
 * Keeps, from one collection to the next, the reads of what a host says about its hardware's
 * identity: they do not change while a device stays plugged in, yet they were more than half of
 * the files a collection read (docs/benchmarks.md). {@link #over} gives, for one collection, a
 * {@link HostSource} that answers those reads from what it kept and hands every other read to the
 * host. Stages read through it and do not know.
 *
 * <p>The rule, in one place ({@link #KEPT_TEXT} and the others): PCI vendor, device, class, NUMA
 * node, maximum link speed and width, and config space; an RDMA device's GUIDs, node type,
 * firmware version, HCA type, board id, and its ports' link layers; the names in the
 * counter folders and GID table a driver creates, and the ports; resolved device and IOMMU group
 * links; kernel release and command line, NUMA nodes and their CPUs, the IOMMU units.
 * Everything else (state, rates, counter values, current PCIe link, GIDs, drivers, which a
 * rebind changes while the listings stay, an rxe device's parent and all of a netdev, whose name
 * can move to another device while the hardware listing stays) is read on every collection. A
 * file found missing is kept as missing; any other failure (EIO during a firmware reset, a read that
 * timed out) is not kept, so the next collection reads the file again.
 *
 * <p>Everything kept is dropped, and read again, when {@code refresh} has passed since it was
 * filled ({@code collection.identity_refresh}), or when a listing that names the hardware
 * ({@link #HARDWARE}) changed since the previous collection: an RDMA device or PCI function appeared
 * or went (hot plug, a driver rebind, a firmware reset). A changed firmware version therefore shows
 * within {@code refresh} at the latest. Used by one collection at a time; its maps are concurrent
 * anyway, since a collection abandoned after a hung read may still be finishing on the reader
 * thread when the next one starts.
 */
public final class StableReads {
    /** Default time after which every kept fact is read again. */
    public static final Duration DEFAULT_REFRESH = Duration.ofMinutes(5);
    /** The listings that name the hardware: a change drops everything kept. */
    static final List<String> HARDWARE = List.of("sys/class/infiniband", "sys/bus/pci/devices");
    private static final int MAX_ENTRIES = 100_000;

    private static final String PCI = "sys/(?:bus/pci/devices|devices)/.+/";
    private static final String IB = "sys/class/infiniband/[^/]+";
    /** Files whose text is kept. */
    static final Pattern KEPT_TEXT = Pattern.compile(PCI + "(?:vendor|device|class|numa_node|max_link_speed|max_link_width)"
            + "|" + IB + "/(?:node_guid|sys_image_guid|node_type|fw_ver|hca_type|board_id|device/numa_node)"
            + "|" + IB + "/ports/[^/]+/link_layer"
            + "|proc/sys/kernel/osrelease|proc/cmdline|sys/devices/system/node/node\\d+/cpulist");
    /** Binary files whose bytes are kept: PCI config space (it changes only through setpci). */
    static final Pattern KEPT_BYTES = Pattern.compile(PCI + "config");
    /** Folders whose names are kept: the driver creates them with the device. */
    static final Pattern KEPT_LISTING = Pattern.compile(IB + "(?:/ports|/hw_counters|/ports/[^/]+/(?:counters|counters_ext|hw_counters|gids))?"
            + "|sys/devices/system/node|sys/class/iommu");
    /**
     * Links (and whether they exist) kept resolved: a device's PCI function, IOMMU group, net
     * folder; not a driver link (a rebind changes it while the listings stay). Not a netdev's: netdevs can swap names while the hardware listing stays.
     */
    static final Pattern KEPT_LINK = Pattern.compile("sys/bus/pci/devices/[^/]+|(?!sys/class/net/).+/(?:device|iommu_group|ports|device/net)"
            + "|sys/class/iommu");

    private final long refreshNanos;
    private final LongSupplier nanos;
    private final Map<Key, Object> kept = new ConcurrentHashMap<>();
    private final Map<String, List<String>> listings = new ConcurrentHashMap<>();
    private HostSource keptFrom;
    private long filledAt;

    /** What a kept answer is of. */
    private enum Kind { TEXT, BYTES, LISTING, EXISTS, REAL_PATH }

    private record Key(Kind kind, String path) {
    }

    public StableReads(Duration refresh, LongSupplier nanos) {
        this.refreshNanos = refresh.toNanos();
        this.nanos = nanos;
    }

    /**
     * The host for one collection, with what was kept: dropped first when {@code refresh} has
     * passed, the hardware listing changed, or {@code host} is another source than last time.
     */
    public synchronized HostSource over(HostSource host) {
        if (refreshNanos <= 0) {
            return host; // nothing kept: every read goes to the host
        }
        long now = nanos.getAsLong();
        boolean changed = host != keptFrom;
        for (String l : HARDWARE) {
            List<String> names;
            try {
                names = host.list(l);
            } catch (HostReadException e) {
                names = List.of();
            }
            changed |= !names.equals(listings.put(l, names));
        }
        if (changed || now - filledAt >= refreshNanos) {
            kept.clear();
            keptFrom = host;
            filledAt = now; // the refresh time counts from the collection that fills them
        }
        return new Kept(host);
    }

    private interface Read {
        Object get() throws HostReadException;
    }

    /** The kept answer (a value, or the failure thrown again), else {@code read}'s, then kept. */
    private Object answer(Kind kind, String path, Read read) throws HostReadException {
        Key key = new Key(kind, path);
        Object v = kept.get(key);
        if (v == null) {
            try {
                v = read.get();
            } catch (HostReadException e) {
                if (!e.isMissing()) {
                    throw e; // EIO in a firmware reset, a read that timed out: read again next collection
                }
                v = e;
            }
            if (kept.size() < MAX_ENTRIES) {
                kept.put(key, v);
            }
        }
        if (v instanceof HostReadException e) {
            throw e;
        }
        return v;
    }

    /** The host for one collection: kept reads answered from {@link StableReads}, the rest from the host. */
    private final class Kept extends ForwardingHostSource {
        Kept(HostSource host) {
            super(host);
        }

        @Override
        public String read(String path) throws HostReadException {
            return KEPT_TEXT.matcher(path).matches() ? (String) answer(Kind.TEXT, path, () -> super.read(path)) : super.read(path);
        }

        @Override
        public byte[] readBytes(String path) throws HostReadException {
            return KEPT_BYTES.matcher(path).matches()
                    ? ((byte[]) answer(Kind.BYTES, path, () -> super.readBytes(path))).clone() : super.readBytes(path);
        }

        @Override
        @SuppressWarnings("unchecked")
        public List<String> list(String path) throws HostReadException {
            return KEPT_LISTING.matcher(path).matches()
                    ? (List<String>) answer(Kind.LISTING, path, () -> List.copyOf(super.list(path))) : super.list(path);
        }

        @Override
        public boolean exists(String path) {
            if (!KEPT_LINK.matcher(path).matches()) {
                return super.exists(path);
            }
            try {
                return (Boolean) answer(Kind.EXISTS, path, () -> super.exists(path));
            } catch (HostReadException e) {
                throw new IllegalStateException(e); // exists never fails
            }
        }

        @Override
        public String realPath(String path) throws HostReadException {
            return KEPT_LINK.matcher(path).matches() ? (String) answer(Kind.REAL_PATH, path, () -> super.realPath(path))
                    : super.realPath(path);
        }
    }
}
