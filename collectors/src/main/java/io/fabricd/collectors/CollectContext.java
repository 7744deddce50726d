package io.fabricd.collectors;

import io.fabricd.collectors.StableFacts.Key;
import io.fabricd.collectors.StableFacts.Kind;
import io.fabricd.model.ReadError;
import io.fabricd.collectors.source.HostReadException;
import io.fabricd.collectors.source.HostSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/** What a collector gets for one collection: the host, the config, the model being built, an error log. */
public final class CollectContext {
    /** Bound on recorded errors per collector, so a host with thousands of broken files stays small. */
    static final int MAX_ERRORS = 1000;
    /** Prefix of an error that means the collector could not do its job at all (it is then reported failed). */
    public static final String FATAL = "fatal: ";

    private final HostSource source;
    private final CollectorConfig config;
    private final HostModelBuilder model;
    private final StableFacts stable;
    private final List<ReadError> errors = new ArrayList<>();
    private int dropped;

    CollectContext(HostSource source, CollectorConfig config, HostModelBuilder model) {
        this(source, config, model, StableFacts.none());
    }

    CollectContext(HostSource source, CollectorConfig config, HostModelBuilder model, StableFacts stable) {
        this.source = source;
        this.config = config;
        this.model = model;
        this.stable = stable;
    }

    public HostSource source() {
        return source;
    }

    public CollectorConfig config() {
        return config;
    }

    public HostModelBuilder model() {
        return model;
    }

    public void error(String path, String error) {
        if (errors.size() < MAX_ERRORS) {
            errors.add(new ReadError(path, error));
        } else {
            dropped++;
        }
    }

    public void error(HostReadException e) {
        error(e.path(), e.errno());
    }

    /** A file that should be there: its absence and any read failure are recorded. */
    public Optional<String> required(String path) {
        try {
            return Optional.of(source.readLine(path));
        } catch (HostReadException e) {
            error(e);
            return Optional.empty();
        }
    }

    /** A file that may be absent (absence is not recorded; a failing read of an existing file is). */
    public Optional<String> optional(String path) {
        try {
            return Optional.of(source.readLine(path));
        } catch (HostReadException e) {
            if (!e.isMissing()) {
                error(e);
            }
            return Optional.empty();
        }
    }

    /** {@link #optional} of a binary file (a PCI function's config space): its bytes, as many as the read returned. */
    public Optional<byte[]> optionalBytes(String path) {
        try {
            return Optional.of(source.readBytes(path));
        } catch (HostReadException e) {
            if (!e.isMissing()) {
                error(e);
            }
            return Optional.empty();
        }
    }

    /**
     * {@link #optional} for a fact that does not change while the hardware stays (a PCI vendor, a
     * GUID, a NUMA node): read once and kept across collections ({@link StableFacts}).
     */
    public Optional<String> stable(String path) {
        return stable(path, false);
    }

    /** {@link #required} for a fact that does not change while the hardware stays. */
    public Optional<String> stableRequired(String path) {
        return stable(path, true);
    }

    private Optional<String> stable(String path, boolean required) {
        Object v = kept(Kind.READ, path, () -> source.readLine(path));
        if (v instanceof HostReadException e) {
            if (required || !e.isMissing()) {
                error(e);
            }
            return Optional.empty();
        }
        return Optional.of((String) v);
    }

    /** {@link HostSource#exists} of a path that does not come and go while the hardware stays. */
    public boolean stableExists(String path) {
        return (Boolean) kept(Kind.EXISTS, path, () -> source.exists(path));
    }

    /** {@link HostSource#realPath} of a device or driver link, kept while the hardware stays. */
    public String stableRealPath(String path) throws HostReadException {
        Object v = kept(Kind.REAL_PATH, path, () -> source.realPath(path));
        if (v instanceof HostReadException e) {
            throw e;
        }
        return (String) v;
    }

    /**
     * The name a link such as a device's {@code driver} points to (the last component of its
     * resolved path), kept while the hardware stays; null when there is no such link, and a failure
     * to resolve it recorded (on every collection, as a kept failure is).
     */
    public String stableLinkName(String link) {
        if (!stableExists(link)) {
            return null;
        }
        try {
            String real = stableRealPath(link);
            return real.substring(real.lastIndexOf('/') + 1);
        } catch (HostReadException e) {
            error(e);
            return null;
        }
    }

    /**
     * {@link #listOptional} of a folder whose names are fixed while the hardware stays (a port's
     * counters/ and hw_counters/: the driver defines them), kept across collections.
     */
    @SuppressWarnings("unchecked")
    public List<String> stableListOptional(String path) {
        Object v = keptListing(path);
        if (v instanceof HostReadException e) {
            if (!e.isMissing()) {
                error(e);
            }
            return List.of();
        }
        return (List<String>) v;
    }

    /**
     * A value derived from kept facts only (a GPU-NIC path class from two resolved paths), computed
     * once and kept as long as they are. {@code key} must name everything the value depends on.
     */
    @SuppressWarnings("unchecked")
    public <T> T derived(String key, Supplier<T> compute) {
        return (T) kept(Kind.DERIVED, key, compute::get);
    }

    /**
     * True when the folder can be listed, kept while the hardware stays; a failure (missing too)
     * is recorded on every collection.
     */
    public boolean stableReadable(String folder) {
        if (keptListing(folder) instanceof HostReadException e) {
            error(e);
            return false;
        }
        return true;
    }

    /** The kept listing of a folder (an unmodifiable list) or its failure. */
    private Object keptListing(String folder) {
        return kept(Kind.LISTING, folder, () -> List.copyOf(source.list(folder)));
    }

    /** A kept group of facts and the errors reading them recorded. */
    private record Group(Object value, List<ReadError> errors) {
    }

    /**
     * Several facts that do not change while the hardware stays (a PCI function's ids, NUMA node,
     * maximum link, driver), read by {@code read} with this context's stable reads and kept as one
     * value: one lookup per collection instead of one per fact. The errors {@code read}
     * recorded are kept with it and recorded again on every collection, as a kept failed read is.
     * {@code read} must read only facts {@link #stable} would keep.
     */
    @SuppressWarnings("unchecked")
    public <T> T stableGroup(String key, Function<CollectContext, T> read) {
        Object v = stable.get(new Key(Kind.GROUP, key));
        if (v instanceof Group g) {
            for (ReadError e : g.errors()) {
                error(e.path(), e.error());
            }
            return (T) g.value();
        }
        int mark = errors.size();
        T value = read.apply(this);
        stable.put(new Key(Kind.GROUP, key), new Group(value, List.copyOf(errors.subList(mark, errors.size()))));
        return value;
    }

    /** True when {@link #derived} has {@code key} kept (false always when nothing is kept). */
    public boolean isDerived(String key) {
        return stable.get(new Key(Kind.DERIVED, key)) != null;
    }

    private interface Read {
        Object get() throws HostReadException;
    }

    /** The kept answer under {@code key}, or {@code read}'s (a value or its failure), then kept. */
    private Object kept(Kind kind, String name, Read read) {
        Key key = new Key(kind, name);
        Object v = stable.get(key);
        if (v == null) {
            try {
                v = read.get();
            } catch (HostReadException e) {
                v = e;
            }
            stable.put(key, v);
        }
        return v;
    }

    /**
     * Tells the kept facts what hardware there is now (the names of a listing such as
     * sys/class/infiniband): a change drops them all, so a new or re-plugged device is read afresh.
     */
    public void hardware(String listing, List<String> names) {
        stable.listing(listing, names);
    }

    /** A directory listing; absent directory gives an empty list (not recorded), other failures are recorded. */
    public List<String> listOptional(String path) {
        try {
            return source.list(path);
        } catch (HostReadException e) {
            if (!e.isMissing()) {
                error(e);
            }
            return List.of();
        }
    }

    List<ReadError> errors() {
        if (dropped > 0) {
            List<ReadError> all = new ArrayList<>(errors);
            all.add(new ReadError("", dropped + " more errors not listed"));
            return all;
        }
        return errors;
    }
}
