package io.fabricd.collectors.source;

import io.fabricd.collectors.kernel.HostReadException;
import io.fabricd.collectors.kernel.KernelQueries;
import io.fabricd.collectors.kernel.live.LiveKernel;
import io.fabricd.natives.Natives;
import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * The running host. Reads are bounded in size and, through {@link BoundedReader}, in time: a sysfs
 * read can block in the driver (a firmware command that never completes), and a collection must
 * still finish. A read that times out fails with ETIMEDOUT and its path is quarantined - later
 * reads of it fail at once - until that read returns. Its owner hands the reader to the collection
 * ({@link #runner}): a whole collection then runs on the reader thread with its reads done there directly.
 */
public final class LiveHostSource implements HostSource, AutoCloseable {
    private static final Map<String, String> REASONS = Map.ofEntries(
            Map.entry("Invalid argument", "EINVAL"),
            Map.entry("No such device", "ENODEV"),
            Map.entry("No such device or address", "ENXIO"),
            Map.entry("Operation not supported", "EOPNOTSUPP"),
            Map.entry("Input/output error", "EIO"),
            Map.entry("Device or resource busy", "EBUSY"),
            Map.entry("Permission denied", "EACCES"),
            Map.entry("Operation not permitted", "EPERM"),
            Map.entry("No such file or directory", "ENOENT"),
            Map.entry("Resource temporarily unavailable", "EAGAIN"),
            Map.entry("Connection timed out", "ETIMEDOUT"),
            Map.entry("Function not implemented", "ENOSYS"),
            Map.entry("Not a directory", "ENOTDIR"),
            Map.entry("Is a directory", "EISDIR"));

    private final Path root;
    private final BoundedReader reader;
    private final String rootPrefix;
    private final KernelQueries kernel;

    /** Live semantics over another root (tests use a folder with FIFOs and unreadable files), with this process's bindings. */
    public LiveHostSource(Path root, Duration timeout) {
        this(root, timeout, Natives.load());
    }

    /**
     * The host under {@code root} ("/" for the real one), its kernel asked through {@code natives}
     * (ioctl and netlink through libc, verbs through the shim; one that did not load fails those
     * queries with its reason).
     */
    public LiveHostSource(Path root, Duration timeout, Natives natives) {
        this.kernel = new LiveKernel(natives.libc(), natives.verbs());
        this.root = root.toAbsolutePath();
        this.rootPrefix = this.root.toString().endsWith("/") ? this.root.toString() : this.root + "/";
        this.reader = new BoundedReader(timeout);
    }

    @Override
    public KernelQueries kernel() {
        return kernel;
    }

    @Override
    public boolean isSnapshot() {
        return false;
    }

    @Override
    public String describe() {
        return root.toString();
    }

    private Path abs(String path) {
        return root.resolve(path.startsWith("/") ? path.substring(1) : path);
    }

    static HostReadException mapException(String path, Throwable t) {
        if (t instanceof NoSuchFileException) {
            return new HostReadException(path, "ENOENT");
        }
        if (t instanceof AccessDeniedException) {
            return new HostReadException(path, "EACCES");
        }
        if (t instanceof NotDirectoryException) {
            return new HostReadException(path, "ENOTDIR");
        }
        if (t instanceof FileSystemLoopException) {
            return new HostReadException(path, "ELOOP");
        }
        if (t instanceof FileSystemException fse && fse.getReason() != null) {
            String errno = REASONS.get(fse.getReason());
            return new HostReadException(path, errno != null ? errno : "EIO", fse.getReason());
        }
        String msg = t.getMessage();
        if (msg != null && msg.endsWith(")") && msg.lastIndexOf(" (") >= 0) {
            // java.io's "PATH (Reason)", as FileInputStream reports a failed open
            String errno = REASONS.get(msg.substring(msg.lastIndexOf(" (") + 2, msg.length() - 1));
            if (errno != null) {
                return new HostReadException(path, errno);
            }
        }
        if (msg != null) {
            for (Map.Entry<String, String> e : REASONS.entrySet()) {
                if (msg.contains(e.getKey())) {
                    return new HostReadException(path, e.getValue());
                }
            }
        }
        return new HostReadException(path, "EIO", msg);
    }

    /** Runs a collection on the reader thread, its reads done there and watched ({@link BoundedReader}). */
    public CollectionRunner runner() {
        return reader;
    }

    /** True while {@code path} is quarantined: a read of it hung and has not returned (tests). */
    boolean quarantined(String path) {
        return reader.quarantined(path);
    }

    @Override
    public String read(String path) throws HostReadException {
        return reader.read(path, () -> readNow(path, StandardCharsets.UTF_8));
    }

    @Override
    public byte[] readBytes(String path) throws HostReadException {
        return reader.read(path, () -> readNow(path, StandardCharsets.ISO_8859_1)).getBytes(StandardCharsets.ISO_8859_1);
    }

    private String readNow(String path, Charset cs) throws IOException {
        // the absolute name by concatenation: no Path built and normalized per read
        String rel = path.startsWith("/") ? path.substring(1) : path;
        return SmallFiles.read(rootPrefix + rel, path, MAX_FILE_BYTES, rel.startsWith("sys/") ? SmallFiles.SYSFS_PAGE : SmallFiles.EOF_ONLY,
                cs);
    }

    @Override
    public List<String> list(String path) throws HostReadException {
        Path p = abs(path);
        return reader.read(path, () -> {
            List<String> names = new ArrayList<>();
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(p)) {
                for (Path e : ds) {
                    names.add(e.getFileName().toString());
                }
            }
            Collections.sort(names);
            return names;
        });
    }

    @Override
    public boolean exists(String path) {
        return Files.exists(abs(path));
    }

    @Override
    public boolean isDirectory(String path) {
        return Files.isDirectory(abs(path));
    }

    @Override
    public String realPath(String path) throws HostReadException {
        try {
            Path real = abs(path).toRealPath();
            Path rootReal = root.toRealPath();
            return rootReal.relativize(real).toString();
        } catch (IOException e) {
            throw mapException(path, e);
        }
    }

    @Override
    public synchronized void close() {
        reader.close();
    }
}
