package io.fabricd.collectors.source;

import io.fabricd.collectors.kernel.HostReadException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Path resolution inside a snapshot folder, for {@link SnapshotHostSource}: links are followed
 * here, component by component, so none can lead out of the folder (EXDEV), loops fail with ELOOP,
 * an absolute link is taken as relative to the folder, and {@code fabricd/unreadable.txt} is
 * matched against the fully resolved path.
 *
 * <p>Paths that resolved are kept, and so are the real folders met on the way: a path starts from
 * the nearest folder above it already resolved, and a real folder already seen costs no lstat. A
 * sysfs snapshot reaches most files through two or three links, so resolving each from the root
 * took a dozen lstat calls a file — minutes for one collection where each is a round trip (a
 * snapshot on 9p or NFS); now it takes about one. {@link #forgetAll} drops them all once one turned
 * out stale (a file gone, a folder swapped), and failures are never kept, so a file put back is
 * seen on the next read.
 */
final class SnapshotPaths {
    private static final int MAX_LINK_HOPS = 40;
    private static final int MAX_DEPTH = 256;
    private static final int MAX_KEPT = 200_000;

    enum Kind { FILE, DIR, OTHER, ABSENT }

    /** A resolved path: its real path under the root, what is there, and the unreadable.txt errno that applies (or null). */
    record Resolved(String real, Kind kind, String errno) {
    }

    private final Path root;
    private final Map<String, String> unreadable;
    /** Unreadable paths by parent folder: they exist on the host, so listings show them. */
    private final Map<String, List<String>> unreadableByParent = new HashMap<>();
    private final Map<String, Resolved> kept = new ConcurrentHashMap<>();

    SnapshotPaths(Path root, Map<String, String> unreadable) {
        this.root = root;
        this.unreadable = unreadable;
        for (String p : unreadable.keySet()) {
            int slash = p.lastIndexOf('/');
            String parent = slash < 0 ? "" : p.substring(0, slash);
            unreadableByParent.computeIfAbsent(parent, k -> new ArrayList<>()).add(p.substring(slash + 1));
        }
    }

    /** The names unreadable.txt lists directly in the folder at {@code real}. */
    List<String> unreadableIn(String real) {
        return unreadableByParent.getOrDefault(real, List.of());
    }

    Resolved resolve(String path) throws HostReadException {
        Resolved r = kept.get(path);
        if (r == null) {
            r = resolveNow(path);
            if ((r.kind() == Kind.FILE || r.kind() == Kind.DIR) && kept.size() < MAX_KEPT) {
                kept.put(path, r);
            }
        }
        return r;
    }

    /**
     * A kept path turned out stale (gone, or no longer a file): every path is resolved afresh next
     * time, since the change may be a folder above it, which other kept paths go through too.
     */
    void forgetAll() {
        kept.clear();
    }

    private Resolved resolveNow(String path) throws HostReadException {
        String[] parts = path.split("/");
        Deque<String> todo = new ArrayDeque<>(List.of(parts));
        List<String> done = new ArrayList<>();
        // start at the nearest folder above already resolved
        for (int i = parts.length - 1; i > 0; i--) {
            Resolved above = kept.get(String.join("/", Arrays.asList(parts).subList(0, i)));
            if (above != null && above.kind() == Kind.DIR) {
                if (!above.real().isEmpty()) {
                    done.addAll(List.of(above.real().split("/")));
                }
                todo = new ArrayDeque<>(Arrays.asList(parts).subList(i, parts.length));
                break;
            }
        }
        int hops = 0;
        Kind kind = Kind.DIR; // the root, or the folder it starts at
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
            String real = done.isEmpty() ? c : String.join("/", done) + "/" + c;
            Resolved seen = kept.get(real);
            if (seen != null && seen.kind() == Kind.DIR && seen.real().equals(real)) {
                done.add(c); // a real folder already resolved: no lstat
                kind = Kind.DIR;
                continue;
            }
            Path candidate = root.resolve(real);
            BasicFileAttributes attrs;
            try {
                attrs = Files.readAttributes(candidate, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            } catch (IOException e) {
                done.add(c);
                todo.removeIf(rest -> rest.isEmpty() || rest.equals("."));
                done.addAll(todo);
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
                String[] hop = target.split("/");
                for (int i = hop.length - 1; i >= 0; i--) {
                    todo.addFirst(hop[i]);
                }
                continue;
            }
            if (!attrs.isDirectory() && todo.stream().anyMatch(t -> !t.isEmpty() && !t.equals("."))) {
                throw new HostReadException(path, "ENOTDIR");
            }
            done.add(c);
            kind = attrs.isRegularFile() ? Kind.FILE : attrs.isDirectory() ? Kind.DIR : Kind.OTHER;
            if (kind == Kind.DIR && kept.size() < MAX_KEPT) {
                kept.put(real, new Resolved(real, Kind.DIR, unreadableErrno(real))); // what resolving it would give
            }
        }
        String real = String.join("/", done);
        return new Resolved(real, kind, unreadableErrno(real));
    }

    /** The errno of the path or of the nearest unreadable folder above it; null when readable. */
    private String unreadableErrno(String real) {
        String p = real;
        while (!unreadable.isEmpty()) {
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
        return null;
    }
}
