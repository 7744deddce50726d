package io.fabricd.collectors.source;

import io.fabricd.collectors.kernel.HostReadException;
import io.fabricd.collectors.kernel.KernelQueries;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The one door to a host. Paths are relative to the host root and use '/' ("sys/class/infiniband");
 * collectors never touch {@code java.nio.file} themselves.
 *
 * <p>Two implementations: {@link LiveHostSource} reads the running host ("/") with bounded reads and
 * a timeout; {@link SnapshotHostSource} reads a snapshot folder (docs/spec/host-snapshot.md),
 * honouring {@code fabricd/unreadable.txt} and never following a link out of the folder.
 *
 * <p>Every failure is a {@link HostReadException} carrying an errno name, so a collector records it
 * for that one path and carries on.
 */
public interface HostSource {

    /** Largest file content returned; sysfs attributes are one short line, side-cars a few KiB. */
    int MAX_FILE_BYTES = 1 << 20;

    /** Whole text of a file (trailing newline included), at most {@link #MAX_FILE_BYTES}. */
    String read(String path) throws HostReadException;

    /**
     * Whole content of a binary file (a PCI function's {@code config}), at most
     * {@link #MAX_FILE_BYTES}: as many bytes as the read returned (the kernel gives an unprivileged
     * reader of {@code config} only the first 64).
     */
    byte[] readBytes(String path) throws HostReadException;

    /**
     * Reads each named file of one folder: name -> the text or the failure, in the order given (a
     * port's counters, a GID table's slots).
     */
    default Map<String, FileRead> readEach(String dir, List<String> names) {
        Map<String, FileRead> out = new LinkedHashMap<>();
        for (String n : names) {
            out.put(n, FileRead.of(this, dir + "/" + n));
        }
        return out;
    }

    /** Names in a directory, sorted; following links that stay inside the root. */
    List<String> list(String path) throws HostReadException;

    /** True when the path exists (following links); a file whose read fails still exists. */
    boolean exists(String path);

    /** True when the path is a directory (following links). */
    boolean isDirectory(String path);

    /** The path with every symlink resolved, relative to the root ("sys/devices/..."). */
    String realPath(String path) throws HostReadException;

    /** Answers that are not files (ethtool, DCB, verbs, RDMA netlink): side-cars or the kernel. */
    KernelQueries kernel();

    /** True for a snapshot folder, false for the live host. */
    boolean isSnapshot();

    /** The snapshot manifest, when there is one. */
    default Optional<SnapshotManifest> manifest() {
        return Optional.empty();
    }

    /** What this source reads, for logs and messages ("/" or the snapshot folder). */
    String describe();

    /** Reads one line of text: the file without its trailing newline. */
    default String readLine(String path) throws HostReadException {
        String s = read(path);
        int end = s.length();
        while (end > 0 && (s.charAt(end - 1) == '\n' || s.charAt(end - 1) == '\r')) {
            end--;
        }
        return s.substring(0, end);
    }

    /** Joins path parts with '/', skipping empty ones. */
    static String join(String... parts) {
        StringBuilder sb = new StringBuilder();
        for (String p : parts) {
            if (p == null || p.isEmpty()) {
                continue;
            }
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) != '/') {
                sb.append('/');
            }
            sb.append(p);
        }
        return sb.toString();
    }
}
