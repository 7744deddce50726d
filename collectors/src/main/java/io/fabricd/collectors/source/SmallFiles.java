package io.fabricd.collectors.source;

import io.fabricd.collectors.kernel.HostReadException;
import java.io.ByteArrayOutputStream;
import java.io.FileInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.Charset;

/**
 * The one way fabricd reads a file: open, read into a buffer of a few KiB, close (no {@code stat}
 * first).
 *
 * <p>Reads ask for at most {@link #CHUNK} bytes at a time: the JDK reads up to 8 KiB through a
 * buffer on the stack and mallocs one for anything larger, on every call. sysfs attributes are one
 * page at most; side-cars and big procfs files take several chunks.
 *
 * <p>{@link FileInputStream} refuses a directory itself (EISDIR), so no {@code stat} is needed
 * first; a FIFO would block the open, so callers that may meet one (the live host) call this on a
 * thread they can abandon.
 */
final class SmallFiles {
    static final int CHUNK = 8 * 1024;
    /** What one read gets before it grows: a sysfs attribute is a page at most. */
    private static final int BUFFER = 8 * 1024;

    private SmallFiles() {
    }

    /** A read of up to {@code len} bytes into {@code b} at {@code off}, the file's next bytes; -1 at the end. */
    interface Input {
        int read(byte[] b, int off, int len) throws IOException;
    }

    /**
     * {@code endsBelow} for a regular file in a local folder (a snapshot): any read shorter than asked
     * for is the end.
     */
    static final int ANY_SHORT_READ = Integer.MAX_VALUE;
    /**
     * {@code endsBelow} for a sysfs attribute: a read shorter than a page (and than asked for) is the
     * end. The kernel shows a regular attribute whole in one read (at most a page, kernfs' seq_file)
     * and reads a binary one at most a page at a time; a read short of both therefore found the end,
     * and the read that would return 0 is saved.
     */
    static final int SYSFS_PAGE = 4096;
    /** {@code endsBelow} for any other file (procfs' seq_files stop each read at their buffer): read until 0. */
    static final int EOF_ONLY = 0;

    /**
     * The whole file as text in {@code cs}, at most {@code max} bytes (EFBIG beyond): UTF-8 for text,
     * ISO-8859-1 for a binary file (one char per byte, so {@code getBytes(ISO_8859_1)} gives the
     * bytes back).
     *
     * @param endsBelow a read shorter than both the bytes asked for and this is taken as the end of
     *                  the file ({@link #ANY_SHORT_READ}, {@link #SYSFS_PAGE}, {@link #EOF_ONLY})
     */
    static String read(String file, String hostPath, int max, int endsBelow, Charset cs) throws IOException {
        try (FileInputStream in = open(file, hostPath)) {
            return read(in::read, hostPath, max, endsBelow, cs);
        }
    }

    /**
     * FileInputStream reports every failed open as a FileNotFoundException ("PATH (Reason)"): a
     * missing file stays one, any other failure (EACCES, ...) becomes a HostReadException with its errno.
     */
    private static FileInputStream open(String file, String hostPath) throws IOException {
        try {
            return new FileInputStream(file);
        } catch (FileNotFoundException e) {
            HostReadException h = LiveHostSource.mapException(hostPath, e);
            if (h.isMissing()) {
                throw e;
            }
            throw h;
        }
    }

    static String read(Input in, String hostPath, int max, int endsBelow, Charset cs) throws IOException {
        byte[] buf = new byte[BUFFER];
        int n = 0;
        while (n < buf.length) {
            int want = Math.min(CHUNK, buf.length - n);
            int r = in.read(buf, n, want);
            if (r < 0) {
                return new String(buf, 0, n, cs);
            }
            n += r;
            if (r < want && r < endsBelow) {
                return new String(buf, 0, n, cs);
            }
        }
        // larger than the buffer: a side-car or a big procfs file
        ByteArrayOutputStream out = new ByteArrayOutputStream(2 * BUFFER);
        out.write(buf, 0, n);
        int total = n;
        while (true) {
            int r = in.read(buf, 0, CHUNK);
            if (r < 0) {
                break;
            }
            total += r;
            if (total > max) {
                throw new HostReadException(hostPath, "EFBIG", "larger than " + max + " bytes");
            }
            out.write(buf, 0, r);
        }
        return out.toString(cs);
    }
}
