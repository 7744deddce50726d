package io.fabricd.collectors.source;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.collectors.kernel.HostReadException;
import io.fabricd.collectors.kernel.KernelQueries;
import io.fabricd.collectors.source.SnapshotPaths.Kind;
import io.fabricd.collectors.source.SnapshotPaths.Resolved;
import io.fabricd.natives.LibC;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A host snapshot folder (docs/spec/host-snapshot.md). Links are resolved by {@link SnapshotPaths}
 * (never out of the folder; {@code fabricd/unreadable.txt} applied to the resolved path), and only
 * regular files are read: a FIFO or device node fails with EINVAL and never blocks. Files are
 * opened through openat2 ({@link BeneathRoot}), so a file or folder swapped for a link between the
 * resolution and the open is not followed; where the kernel lacks openat2, the file is checked
 * just before it is opened.
 */
public final class SnapshotHostSource implements HostSource {
    public static final String UNREADABLE = "fabricd/unreadable.txt";
    public static final String MANIFEST = "fabricd-snapshot.json";

    private final Path root;
    private final SnapshotPaths paths;
    private final Optional<SnapshotManifest> manifest;
    /** Opens inside the folder only (openat2); null where the kernel lacks it: then the checks of stillAFile. */
    private final BeneathRoot beneath;

    private SnapshotHostSource(Path root, Map<String, String> unreadable, Optional<SnapshotManifest> manifest) {
        this.root = root;
        this.paths = new SnapshotPaths(root, unreadable);
        this.manifest = manifest;
        this.beneath = BeneathRoot.open(LibC.load(), root);
    }

    /**
     * Opens a snapshot folder.
     *
     * @throws IllegalArgumentException with a user-facing message when the folder is unusable
     */
    public static SnapshotHostSource open(Path folder) {
        Path root;
        try {
            root = folder.toRealPath();
        } catch (IOException e) {
            throw new IllegalArgumentException("snapshot folder " + folder + " does not exist or cannot be read");
        }
        if (!Files.isDirectory(root)) {
            throw new IllegalArgumentException("snapshot root " + folder + " is not a folder");
        }
        Map<String, String> unreadable = new HashMap<>();
        Path ur = root.resolve(UNREADABLE);
        if (Files.isRegularFile(ur, LinkOption.NOFOLLOW_LINKS)) {
            try {
                for (String line : Files.readAllLines(ur, StandardCharsets.UTF_8)) {
                    String t = line.strip();
                    if (t.isEmpty() || t.startsWith("#")) {
                        continue;
                    }
                    int sp = t.lastIndexOf(' ');
                    String p = sp < 0 ? t : t.substring(0, sp).strip();
                    String errno = sp < 0 ? "EIO" : t.substring(sp + 1).strip();
                    unreadable.put(normalize(p), errno);
                }
            } catch (IOException | RuntimeException e) {
                throw new IllegalArgumentException("cannot read " + ur + ": " + e.getMessage());
            }
        }
        Optional<SnapshotManifest> manifest = Optional.empty();
        Path mf = root.resolve(MANIFEST);
        if (Files.isRegularFile(mf, LinkOption.NOFOLLOW_LINKS)) {
            try {
                manifest = Optional.of(new ObjectMapper().readValue(mf.toFile(), SnapshotManifest.class));
            } catch (JacksonException e) {
                throw new IllegalArgumentException("snapshot manifest " + mf + " is not valid: "
                        + e.getOriginalMessage());
            } catch (IOException e) {
                throw new IllegalArgumentException("cannot read snapshot manifest " + mf + ": " + e.getMessage());
            }
            if (manifest.get().format() != null && manifest.get().format() != 1) {
                throw new IllegalArgumentException("snapshot manifest " + mf + " has format "
                        + manifest.get().format() + "; this fabricd reads format 1");
            }
        }
        return new SnapshotHostSource(root, Map.copyOf(unreadable), manifest);
    }

    private static String normalize(String p) {
        String s = p.replace('\\', '/');
        while (s.startsWith("/")) {
            s = s.substring(1);
        }
        while (s.endsWith("/")) {
            s = s.substring(0, s.length() - 1);
        }
        return s;
    }

    public Path root() {
        return root;
    }

    @Override
    public Optional<SnapshotManifest> manifest() {
        return manifest;
    }

    @Override
    public KernelQueries kernel() {
        return new SideCarKernel(this);
    }

    @Override
    public boolean isSnapshot() {
        return true;
    }

    @Override
    public String describe() {
        return root.toString();
    }

    @Override
    public String read(String path) throws HostReadException {
        return read(path, StandardCharsets.UTF_8);
    }

    @Override
    public byte[] readBytes(String path) throws HostReadException {
        return read(path, StandardCharsets.ISO_8859_1).getBytes(StandardCharsets.ISO_8859_1);
    }

    private String read(String path, Charset cs) throws HostReadException {
        try {
            return readFile(path, cs);
        } catch (FileNotFoundException e) {
            // gone since it was resolved, or the folder itself deleted and made again: once more
            paths.forgetAll();
            if (beneath != null) {
                beneath.followRoot();
            }
            try {
                return readFile(path, cs);
            } catch (FileNotFoundException again) {
                paths.forgetAll();
                throw new HostReadException(path, "ENOENT");
            }
        }
    }

    private String readFile(String path, Charset cs) throws HostReadException, FileNotFoundException {
        Resolved r = readable(paths.resolve(path), path);
        try {
            if (beneath == null) {
                return SmallFiles.read(checkedFile(path, r), path, MAX_FILE_BYTES, SmallFiles.ANY_SHORT_READ, cs);
            }
            try {
                return beneath.read(r.real(), path, MAX_FILE_BYTES, cs);
            } catch (BeneathRoot.LinkMet e) {
                // the file or a folder above it swapped for a link: resolved again, inside the folder or refused
                paths.forgetAll();
                try {
                    return beneath.read(readable(paths.resolve(path), path).real(), path, MAX_FILE_BYTES, cs);
                } catch (BeneathRoot.LinkMet twice) {
                    throw new HostReadException(path, "ELOOP", "changes while it is read");
                }
            }
        } catch (HostReadException | FileNotFoundException e) {
            throw e;
        } catch (IOException e) {
            throw new HostReadException(path, "EIO", e.getMessage());
        }
    }

    /** {@code r} when it is a regular file that unreadable.txt does not list. */
    private static Resolved readable(Resolved r, String path) throws HostReadException {
        if (r.errno() != null) {
            throw new HostReadException(path, r.errno());
        }
        return switch (r.kind()) {
            case DIR -> throw new HostReadException(path, "EISDIR");
            case FILE -> r;
            default -> throw new HostReadException(path, "EINVAL", "not a regular file");
        };
    }

    /**
     * Without openat2: the file's name, after a check that it is still a regular file (one swapped
     * for a link, which could lead out, or for a pipe, whose open would wait forever, is resolved
     * again). A folder above it swapped for a link is not caught here (docs/security.md).
     */
    private String checkedFile(String path, Resolved r) throws HostReadException {
        Path file = root.resolve(r.real());
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            paths.forgetAll();
            r = readable(paths.resolve(path), path);
            file = root.resolve(r.real());
        }
        return file.toString();
    }

    @Override
    public List<String> list(String path) throws HostReadException {
        Resolved r = paths.resolve(path);
        if (r.errno() != null) {
            throw new HostReadException(path, r.errno());
        }
        if (r.kind() != Kind.DIR) {
            throw new HostReadException(path, "ENOTDIR");
        }
        List<String> names = new ArrayList<>();
        Path dir = root.resolve(r.real());
        try {
            // a folder on the way swapped for a link since it was resolved: the listing would follow it
            if (!dir.toRealPath().equals(dir)) {
                paths.forgetAll();
                throw new HostReadException(path, "ELOOP", "changed into a link since it was resolved; resolved again next time");
            }
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
                for (Path e : ds) {
                    names.add(e.getFileName().toString());
                }
            }
        } catch (NoSuchFileException e) {
            paths.forgetAll();
            throw new HostReadException(path, "ENOENT");
        } catch (NotDirectoryException e) {
            paths.forgetAll();
            throw new HostReadException(path, "ENOTDIR");
        } catch (IOException e) {
            throw new HostReadException(path, "EIO", e.getMessage());
        }
        for (String n : paths.unreadableIn(r.real())) {
            if (!names.contains(n)) {
                names.add(n);
            }
        }
        Collections.sort(names);
        return names;
    }

    @Override
    public boolean exists(String path) {
        try {
            Resolved r = paths.resolve(path);
            return r.errno() != null || Files.exists(root.resolve(r.real()), LinkOption.NOFOLLOW_LINKS);
        } catch (HostReadException e) {
            return false;
        }
    }

    @Override
    public boolean isDirectory(String path) {
        try {
            return Files.isDirectory(root.resolve(paths.resolve(path).real()), LinkOption.NOFOLLOW_LINKS);
        } catch (HostReadException e) {
            return false;
        }
    }

    @Override
    public String realPath(String path) throws HostReadException {
        return paths.resolve(path).real();
    }
}
