package io.fabricd.collectors.source;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A host snapshot folder (docs/spec/host-snapshot.md). Symlinks are resolved here, component by
 * component, so a link can never lead out of the folder (such a path fails with EXDEV), loops fail
 * with ELOOP, and {@code fabricd/unreadable.txt} is matched against the fully resolved path.
 * Only regular files are read (a FIFO or device node in a snapshot fails with EINVAL, never blocks).
 */
public final class SnapshotHostSource implements HostSource {
    private static final int MAX_LINK_HOPS = 40;
    private static final int MAX_DEPTH = 256;
    public static final String UNREADABLE = "fabricd/unreadable.txt";
    public static final String MANIFEST = "fabricd-snapshot.json";

    private final Path root;
    private final String rootPrefix;
    private final Map<String, String> unreadable;
    /** Unreadable paths by parent folder: they exist on the host, so listings show them. */
    private final Map<String, List<String>> unreadableByParent = new HashMap<>();
    private final Optional<SnapshotManifest> manifest;
    private final Map<String, Object> resolveCache = new ConcurrentHashMap<>();
    /** Opens inside the folder only (openat2); null where the kernel lacks it: then the checks of stillAFile. */
    private final BeneathRoot beneath;

    private SnapshotHostSource(Path root, Map<String, String> unreadable, Optional<SnapshotManifest> manifest) {
        this.root = root;
        this.rootPrefix = root.toString().endsWith("/") ? root.toString() : root + "/";
        this.unreadable = unreadable;
        this.manifest = manifest;
        this.beneath = BeneathRoot.open(root);
        for (String p : unreadable.keySet()) {
            int slash = p.lastIndexOf('/');
            String parent = slash < 0 ? "" : p.substring(0, slash);
            unreadableByParent.computeIfAbsent(parent, k -> new ArrayList<>()).add(p.substring(slash + 1));
        }
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
            } catch (com.fasterxml.jackson.core.JacksonException e) {
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
    public io.fabricd.collectors.kernel.KernelQueries kernel() {
        return new io.fabricd.collectors.kernel.SideCarKernel(this);
    }

    @Override
    public boolean isSnapshot() {
        return true;
    }

    @Override
    public String describe() {
        return root.toString();
    }

    /**
     * A path resolved once: its real path under the root, what is there (a snapshot's shape does
     * not change while it is read, its file contents may) and the unreadable.txt errno that applies.
     */
    private record Resolved(String real, Kind kind, String errno, String file) {
        Resolved(String real, Kind kind, String errno) {
            this(real, kind, errno, null);
        }
    }

    private enum Kind { FILE, DIR, OTHER, ABSENT }

    /** Resolved path: list of components under the root. Cached, since a snapshot does not change. */
    private String resolve(String path) throws HostReadException {
        return resolved(path).real();
    }

    private Resolved resolved(String path) throws HostReadException {
        Object cached = resolveCache.get(path);
        if (cached instanceof Resolved r) {
            return r;
        }
        if (cached instanceof HostReadException e) {
            throw new HostReadException(path, e.errno());
        }
        try {
            Resolved r = doResolve(path);
            if (resolveCache.size() < 200_000) {
                resolveCache.put(path, r);
            }
            return r;
        } catch (HostReadException e) {
            if (resolveCache.size() < 200_000) {
                resolveCache.put(path, e);
            }
            throw e;
        }
    }

    private Resolved doResolve(String path) throws HostReadException {
        Deque<String> todo = new ArrayDeque<>();
        for (String c : path.split("/")) {
            todo.addLast(c);
        }
        List<String> done = new ArrayList<>();
        int hops = 0;
        Kind kind = Kind.DIR; // the root
        while (!todo.isEmpty()) {
            String c = todo.pollFirst();
            if (c.isEmpty() || c.equals(".")) {
                continue;
            }
            if (c.equals("..")) {
                if (done.isEmpty()) {
                    throw new HostReadException(path, "EXDEV", "leads out of the snapshot folder");
                }
                done.remove(done.size() - 1);
                continue;
            }
            if (c.indexOf('\0') >= 0) {
                throw new HostReadException(path, "EINVAL");
            }
            if (done.size() >= MAX_DEPTH) {
                throw new HostReadException(path, "ENAMETOOLONG");
            }
            Path candidate = root.resolve(String.join("/", done)).resolve(c);
            BasicFileAttributes attrs;
            try {
                attrs = Files.readAttributes(candidate, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            } catch (IOException e) {
                done.add(c);
                for (String rest : todo) {
                    if (!rest.isEmpty() && !rest.equals(".")) {
                        done.add(rest);
                    }
                }
                String joined = String.join("/", done);
                String errno = unreadableErrno(joined);
                if (errno != null) {
                    return new Resolved(joined, Kind.ABSENT, errno); // listed as unreadable: exists on the host, absent in the folder
                }
                throw new HostReadException(path, "ENOENT");
            }
            if (attrs.isSymbolicLink()) {
                if (++hops > MAX_LINK_HOPS) {
                    throw new HostReadException(path, "ELOOP");
                }
                String target;
                try {
                    target = Files.readSymbolicLink(candidate).toString();
                } catch (IOException e) {
                    throw new HostReadException(path, "EIO", "unreadable link");
                }
                if (target.startsWith("/")) {
                    done.clear(); // absolute link: taken as relative to the snapshot root
                }
                String[] parts = target.split("/");
                for (int i = parts.length - 1; i >= 0; i--) {
                    todo.addFirst(parts[i]);
                }
                continue;
            }
            if (!attrs.isDirectory() && !todo.isEmpty() && todo.stream().anyMatch(t -> !t.isEmpty() && !t.equals("."))) {
                throw new HostReadException(path, "ENOTDIR");
            }
            done.add(c);
            kind = attrs.isRegularFile() ? Kind.FILE : attrs.isDirectory() ? Kind.DIR : Kind.OTHER;
        }
        String real = String.join("/", done);
        return new Resolved(real, kind, unreadableErrno(real), kind == Kind.FILE ? rootPrefix + real : null);
    }

    /** The errno of the path or of the nearest unreadable folder above it; null when readable. */
    private String unreadableErrno(String real) {
        if (unreadable.isEmpty()) {
            return null;
        }
        String p = real;
        while (true) {
            String errno = unreadable.get(p);
            if (errno != null) {
                return errno;
            }
            int slash = p.lastIndexOf('/');
            if (slash < 0) {
                return null;
            }
            p = p.substring(0, slash);
        }
    }

    @Override
    public String read(String path) throws HostReadException {
        Resolved r = resolved(path);
        if (r.errno() != null) {
            throw new HostReadException(path, r.errno());
        }
        switch (r.kind()) {
            case DIR -> throw new HostReadException(path, "EISDIR");
            case OTHER -> throw new HostReadException(path, "EINVAL", "not a regular file");
            default -> {
            }
        }
        try {
            if (beneath != null) {
                return readBeneath(path, r);
            }
            return SmallFiles.read(stillAFile(path, r).file(), path, MAX_FILE_BYTES, SmallFiles.ANY_SHORT_READ);
        } catch (HostReadException e) {
            throw e;
        } catch (java.io.FileNotFoundException e) {
            resolveCache.remove(path); // removed (or replaced) since it was resolved: resolve again next time
            throw new HostReadException(path, "ENOENT");
        } catch (IOException e) {
            throw new HostReadException(path, "EIO", e.getMessage());
        }
    }

    /**
     * Reads the resolved file through openat2, which follows no link and never leaves the folder: a
     * file or any folder above it swapped for a link since it was resolved is resolved again (inside
     * the folder, or refused as a link out) and opened once more; a pipe or device is refused.
     */
    private String readBeneath(String path, Resolved r) throws IOException {
        try {
            return beneath.read(r.real(), path, MAX_FILE_BYTES);
        } catch (BeneathRoot.LinkMet e) {
            try {
                return beneath.read(resolvedAgain(path).real(), path, MAX_FILE_BYTES);
            } catch (BeneathRoot.LinkMet twice) {
                throw new HostReadException(path, "ELOOP", "changes while it is read");
            }
        }
    }

    /**
     * The file as it is now: resolved paths are cached, and a file replaced since by a link (which
     * could lead out of the folder) or by a pipe (whose open would wait for a writer forever) is
     * resolved again, inside the folder, or refused. What a folder swapped for a link above the
     * file does is not caught here (docs/security.md: serve only folders other users cannot write).
     */
    private Resolved stillAFile(String path, Resolved r) throws HostReadException {
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(Path.of(r.file()), BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            resolveCache.remove(path);
            throw new HostReadException(path, "ENOENT");
        }
        if (a.isRegularFile()) {
            return r;
        }
        return resolvedAgain(path);
    }

    /** A file changed since it was resolved: resolved afresh, and it must still be a regular file inside the folder. */
    private Resolved resolvedAgain(String path) throws HostReadException {
        resolveCache.remove(path);
        Resolved again = resolved(path);
        if (again.errno() != null) {
            throw new HostReadException(path, again.errno());
        }
        if (again.kind() != Kind.FILE) {
            throw new HostReadException(path, "EINVAL", "not a regular file");
        }
        return again;
    }

    @Override
    public void collectionStarts() {
        if (beneath != null) {
            beneath.followRoot();
        }
        // what failed to resolve last time is looked at again: a file put back, a folder made
        // again after it was deleted (paths that resolved stay cached: stillAFile checks them)
        resolveCache.values().removeIf(v -> v instanceof HostReadException || v instanceof Resolved r && r.kind() == Kind.OTHER);
    }

    /** A folder's files as read by {@link #readAll}: their paths built once, so every lookup finds them by hash and identity. */
    private record Batch(String[] names, String[] paths) {
    }

    private final Map<String, Batch> batches = new ConcurrentHashMap<>();

    /**
     * Reads a folder's files (a port's counters) like {@link HostSource#readAll}, with the paths of
     * the last call for the same names reused: no path is built again, and the resolved-path and
     * kept-file lookups compare the very same strings (issue 7).
     */
    @Override
    public Map<String, Object> readAll(String dir, List<String> names) {
        Batch b = batches.get(dir);
        if (b == null || !sameNames(b.names(), names)) {
            String[] ns = names.toArray(new String[0]);
            String[] paths = new String[ns.length];
            for (int i = 0; i < ns.length; i++) {
                paths[i] = dir + "/" + ns[i];
            }
            b = new Batch(ns, paths);
            if (batches.size() >= 100_000) {
                batches.clear();
            }
            batches.put(dir, b);
        }
        Map<String, Object> out = new java.util.LinkedHashMap<>();
        String[] ns = b.names();
        String[] paths = b.paths();
        for (int i = 0; i < ns.length; i++) {
            try {
                out.put(ns[i], read(paths[i]));
            } catch (HostReadException e) {
                out.put(ns[i], e);
            }
        }
        return out;
    }

    /** The same names, the same String instances (a kept listing), in the same order. */
    private static boolean sameNames(String[] kept, List<String> names) {
        if (kept.length != names.size()) {
            return false;
        }
        for (int i = 0; i < kept.length; i++) {
            String n = names.get(i);
            if (kept[i] != n && !kept[i].equals(n)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public List<String> list(String path) throws HostReadException {
        Resolved r = resolved(path);
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
                resolveCache.remove(path);
                throw new HostReadException(path, "ELOOP", "changed into a link since it was resolved; resolved again next time");
            }
        } catch (IOException e) {
            resolveCache.remove(path);
            throw new HostReadException(path, "ENOENT");
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path e : ds) {
                names.add(e.getFileName().toString());
            }
        } catch (java.nio.file.NoSuchFileException e) {
            resolveCache.remove(path);
            throw new HostReadException(path, "ENOENT");
        } catch (java.nio.file.NotDirectoryException e) {
            resolveCache.remove(path);
            throw new HostReadException(path, "ENOTDIR");
        } catch (IOException e) {
            throw new HostReadException(path, "EIO", e.getMessage());
        }
        for (String n : unreadableByParent.getOrDefault(r.real(), List.of())) {
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
            Resolved r = resolved(path);
            return r.errno() != null || Files.exists(root.resolve(r.real()), LinkOption.NOFOLLOW_LINKS);
        } catch (HostReadException e) {
            return false;
        }
    }

    @Override
    public boolean isDirectory(String path) {
        try {
            return Files.isDirectory(root.resolve(resolve(path)), LinkOption.NOFOLLOW_LINKS);
        } catch (HostReadException e) {
            return false;
        }
    }

    @Override
    public String realPath(String path) throws HostReadException {
        return resolve(path);
    }
}
