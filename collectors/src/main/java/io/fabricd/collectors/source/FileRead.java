package io.fabricd.collectors.source;

import io.fabricd.collectors.kernel.HostReadException;

/** One file's read: its text, or the failure (exactly one of the two is set). */
public record FileRead(String text, HostReadException failure) {

    /** Reads {@code path} from {@code source}. */
    public static FileRead of(HostSource source, String path) {
        try {
            return new FileRead(source.read(path), null);
        } catch (HostReadException e) {
            return new FileRead(null, e);
        }
    }

    public boolean ok() {
        return failure == null;
    }
}
