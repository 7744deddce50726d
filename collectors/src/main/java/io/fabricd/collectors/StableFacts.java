package io.fabricd.collectors;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * What a host says about its hardware's identity, kept from one collection to the next: PCI
 * vendor/device/class, NUMA node, maximum link speed and width, drivers, GUIDs, firmware version,
 * resolved device links, the names in a port's counters/ and hw_counters/ folders, and values
 * derived from these alone, and the PCIe config registers fabricd decodes (they change only through
 * {@code setpci}, and a 4 KiB read costs the kernel 1 024 config-space accesses). They do not change
 * while a device stays plugged in, yet they were more than half of the files a collection read
 * (docs/benchmarks.md). Also kept: which slots of
 * a port's GID table are populated (addresses change rarely; a GID in a new slot shows after the
 * refresh, see RdmaCollector#gids). State, rates, counter values, current PCIe link speed/width, the populated
 * GIDs and everything else are still read on every collection.
 *
 * <p>Everything kept is dropped, and read again, when {@code refresh} has passed since it was
 * filled, or when a listing that names the hardware changes between two collections (an RDMA
 * device or a PCI function appeared or went: hot plug, a driver rebind, a firmware reset), so a
 * changed firmware version shows within {@code refresh} at the latest. A failed read is kept too
 * (and reported on every collection), so a file that fails keeps failing cheaply until then.
 *
 * <p>Used by one collection at a time ({@link HostCollection#collect} is synchronized).
 */
public final class StableFacts {
    /** Default time after which every kept fact is read again. */
    public static final Duration DEFAULT_REFRESH = Duration.ofMinutes(5);
    private static final int MAX_ENTRIES = 100_000;

    private final long refreshNanos;
    private final LongSupplier nanos;
    private final Map<Key, Object> values = new HashMap<>();
    private final Map<String, List<String>> listings = new HashMap<>();
    private long filledAt;

    /** What a kept value is. */
    enum Kind { READ, EXISTS, REAL_PATH, LISTING, DERIVED, GROUP }

    /** A kept value's key: what it is, and the path (or name) it is of. */
    record Key(Kind kind, String name) {
    }

    public StableFacts(Duration refresh, LongSupplier nanos) {
        this.refreshNanos = refresh.toNanos();
        this.nanos = nanos;
    }

    /** Nothing kept at all: every collection reads everything (a one-shot CLI run, a snapshot). */
    public static StableFacts none() {
        return new StableFacts(Duration.ZERO, System::nanoTime);
    }

    /** Called at the start of each collection: drops everything kept once {@code refresh} has passed. */
    void begin() {
        long now = nanos.getAsLong();
        if (values.isEmpty() || now - filledAt >= refreshNanos) {
            drop();
            filledAt = now; // the refresh time counts from the collection that fills them
        }
    }

    private void drop() {
        values.clear();
        listings.clear();
    }

    /**
     * Records a listing that names hardware (sys/class/infiniband, sys/bus/pci/devices); when it
     * differs from the previous collection's, everything kept is dropped.
     */
    void listing(String name, List<String> names) {
        List<String> old = listings.get(name);
        if (old != null && !old.equals(names)) {
            drop();
        }
        listings.put(name, List.copyOf(names));
    }

    /** The kept value of {@code key} (a text, a listing, a derived value or the failure), or null when not kept. */
    Object get(Key key) {
        return refreshNanos <= 0 ? null : values.get(key);
    }

    void put(Key key, Object value) {
        if (refreshNanos > 0 && values.size() < MAX_ENTRIES) {
            values.put(key, value);
        }
    }
}
