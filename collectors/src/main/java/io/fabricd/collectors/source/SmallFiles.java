package io.fabricd.collectors.source;

import java.io.ByteArrayOutputStream;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;

/**
 * The one way fabricd reads a file: open (with the JDK's fstat), read into a per-thread buffer,
 * close, and no garbage but the returned String — or, for a file kept open between collections
 * ({@link KeptFiles}), seek to 0 and read it again. A collection reads hundreds of files; the path
 * through {@code Files.newInputStream(...).readNBytes(...)} cost a {@code stat} before, a second
 * {@code read} and an 8 KiB array per file (docs/benchmarks.md, issue 7).
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
    private static final int BUFFER = 64 * 1024;
    private static final ThreadLocal<byte[]> BUFFERS = ThreadLocal.withInitial(() -> new byte[BUFFER]);

    private SmallFiles() {
    }

    /** What both FileInputStream and RandomAccessFile offer. */
    private interface Input {
        int read(byte[] b, int off, int len) throws IOException;
    }

    /**
     * The whole file as UTF-8 text, at most {@code max} bytes (EFBIG beyond).
     *
     * @param untilEof read until end of file; false stops at the first short read, which for a
     *                 regular file on a local file system is the end (a snapshot folder), but not
     *                 for every procfs/sysfs file
     */
    static String read(String file, String hostPath, int max, boolean untilEof) throws IOException {
        try (FileInputStream in = new FileInputStream(file)) {
            return read(in::read, hostPath, max, untilEof);
        }
    }

    /** The same from a file kept open: read again from its start (a sysfs attribute is generated anew). */
    static String readAgain(RandomAccessFile file, String hostPath, int max, boolean untilEof) throws IOException {
        file.seek(0);
        return read(file::read, hostPath, max, untilEof);
    }

    private static String read(Input in, String hostPath, int max, boolean untilEof) throws IOException {
        byte[] buf = BUFFERS.get();
        int n = 0;
        while (n < buf.length) {
            int want = Math.min(CHUNK, buf.length - n);
            int r = in.read(buf, n, want);
            if (r < 0) {
                return new String(buf, 0, n, StandardCharsets.UTF_8);
            }
            n += r;
            if (!untilEof && r < want) {
                return new String(buf, 0, n, StandardCharsets.UTF_8);
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
        return out.toString(StandardCharsets.UTF_8);
    }
}
