package io.fabricd.collectors;

import io.fabricd.collectors.kernel.HostReadException;
import io.fabricd.collectors.source.HostSource;
import io.fabricd.model.ReadError;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a stage gets for one collection: the host to read, the config, and its error log. Reads of
 * facts that stay while the hardware does may be answered from what was read before
 * ({@link io.fabricd.collectors.source.StableReads}); a stage does not know, and reads what it needs every time.
 */
public final class CollectContext {
    /** Bound on recorded errors per stage, so a host with thousands of broken files stays small. */
    static final int MAX_ERRORS = 1000;
    /** Prefix of an error that means the stage could not do its job at all (it is then reported failed). */
    public static final String FATAL = "fatal: ";

    private final HostSource source;
    private final CollectorConfig config;
    private final List<ReadError> errors = new ArrayList<>();
    private int dropped;

    public CollectContext(HostSource source, CollectorConfig config) {
        this.source = source;
        this.config = config;
    }

    public HostSource source() {
        return source;
    }

    public CollectorConfig config() {
        return config;
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
        return Optional.ofNullable(readOr(() -> source.readLine(path), null));
    }

    /** {@link #optional} of a binary file (a PCI function's config space): its bytes, as many as the read returned. */
    public Optional<byte[]> optionalBytes(String path) {
        return Optional.ofNullable(readOr(() -> source.readBytes(path), null));
    }

    /** A directory listing; absent directory gives an empty list (not recorded), other failures are recorded. */
    public List<String> listOptional(String path) {
        return readOr(() -> source.list(path), List.of());
    }

    /** A read of the host or a query of its kernel. */
    public interface Read<T> {
        T read() throws HostReadException;
    }

    /** What {@code read} returns, else {@code otherwise}: its failure recorded unless what it reads is not there. */
    public <T> T readOr(Read<T> read, T otherwise) {
        try {
            return read.read();
        } catch (HostReadException e) {
            if (!e.isMissing()) {
                error(e);
            }
            return otherwise;
        }
    }

    /**
     * The name a link such as a device's {@code driver} points to (the last component of its
     * resolved path); null when there is no such link, and a failure to resolve it recorded.
     */
    public String linkName(String link) {
        if (!source.exists(link)) {
            return null;
        }
        try {
            String real = source.realPath(link);
            return real.substring(real.lastIndexOf('/') + 1);
        } catch (HostReadException e) {
            error(e);
            return null;
        }
    }

    /** The errors recorded so far, and how many more were not kept. */
    public List<ReadError> errors() {
        if (dropped > 0) {
            List<ReadError> all = new ArrayList<>(errors);
            all.add(new ReadError("", dropped + " more errors not listed"));
            return List.copyOf(all);
        }
        return List.copyOf(errors);
    }
}
