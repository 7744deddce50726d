package io.fabricd.collectors.source;

import java.io.ByteArrayOutputStream;
import java.io.FileInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The one way fabricd reads a file: open (with the JDK's fstat), read into a per-thread buffer,
 * close, and no garbage but the returned String. A collection reads hundreds of files; the path
 * through {@code Files.newInputStream(...).readNBytes(...)} cost a {@code stat} before, a second
 * {@code read} and an 8 KiB array per file (docs/benchmarks.md, issue 7).
 *
 * <p>{@link FileInputStream} refuses a directory itself (EISDIR), so no {@code stat} is needed
 * first; a FIFO would block the open, so callers that may meet one (the live host) call this on a
 * thread they can abandon.
 */
final class SmallFiles {
    private static final int BUFFER = 64 * 1024;
    private static final ThreadLocal<byte[]> BUFFERS = ThreadLocal.withInitial(() -> new byte[BUFFER]);

    private SmallFiles() {
    }

    /**
     * The whole file as UTF-8 text, at most {@code max} bytes (EFBIG beyond).
     *
     * @param untilEof read until end of file; false stops at the first short read, which for a
     *                 regular file on a local file system is the end (a snapshot folder), but not
     *                 for every procfs/sysfs file
     */
    static String read(String file, String hostPath, int max, boolean untilEof) throws IOException {
        byte[] buf = BUFFERS.get();
        try (FileInputStream in = new FileInputStream(file)) {
            int n = 0;
            while (n < buf.length) {
                int r = in.read(buf, n, buf.length - n);
                if (r < 0) {
                    return new String(buf, 0, n, StandardCharsets.UTF_8);
                }
                n += r;
                if (!untilEof && n < buf.length) {
                    return new String(buf, 0, n, StandardCharsets.UTF_8);
                }
            }
            // larger than the buffer: a side-car or a big procfs file
            ByteArrayOutputStream out = new ByteArrayOutputStream(2 * BUFFER);
            out.write(buf, 0, n);
            int total = n;
            while (true) {
                int r = in.read(buf, 0, buf.length);
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
}
