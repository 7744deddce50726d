package io.fabricd.collectors;

import io.fabricd.collectors.model.ReadError;
import io.fabricd.collectors.source.HostReadException;
import io.fabricd.collectors.source.HostSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** What a collector gets for one collection: the host, the config, the model being built, an error log. */
public final class CollectContext {
    /** Bound on recorded errors per collector, so a host with thousands of broken files stays small. */
    static final int MAX_ERRORS = 1000;

    private final HostSource source;
    private final CollectorConfig config;
    private final HostModelBuilder model;
    private final List<ReadError> errors = new ArrayList<>();
    private int dropped;

    CollectContext(HostSource source, CollectorConfig config, HostModelBuilder model) {
        this.source = source;
        this.config = config;
        this.model = model;
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
