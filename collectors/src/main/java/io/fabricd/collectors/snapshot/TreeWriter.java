package io.fabricd.collectors.snapshot;

import io.fabricd.collectors.kernel.HostReadException;
import io.fabricd.collectors.source.HostSource;
import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Reproduces paths of the source in the snapshot folder, links included: each file under its resolved
 * path, every symlink on the way as a relative link. Counts what it wrote. Each folder is made
 * once: a snapshot written to 9p or NFS pays a round trip for every mkdir and stat.
 */
final class TreeWriter {
    final HostSource src;
    final Path out;
    final Map<String, String> realCache = new TreeMap<>();
    private final Set<Path> folders = new HashSet<>();
    int files;
    int links;

    TreeWriter(HostSource src, Path out) {
        this.src = src;
        this.out = out;
    }

    /**
     * Creates every symlink on the way to {@code path} (as relative links between resolved
     * paths) and returns the path's resolved form; null when it cannot be resolved.
     */
    String materialize(String path) throws IOException {
        String[] parts = path.split("/");
        String prefix = "";
        String parentReal = "";
        for (String part : parts) {
            if (part.isEmpty()) {
                continue;
            }
            prefix = prefix.isEmpty() ? part : prefix + "/" + part;
            String real = real(prefix);
            if (real == null) {
                return null;
            }
            String expected = parentReal.isEmpty() ? part : parentReal + "/" + part;
            if (!real.equals(expected)) {
                Path link = out.resolve(expected);
                if (!Files.exists(link, LinkOption.NOFOLLOW_LINKS)) {
                    folder(link.getParent());
                    Path target = link.getParent().relativize(out.resolve(real));
                    Files.createSymbolicLink(link, target);
                    links++;
                }
            }
            parentReal = real;
        }
        return parentReal;
    }

    private String real(String prefix) {
        if (realCache.containsKey(prefix)) {
            return realCache.get(prefix);
        }
        String r;
        try {
            r = src.realPath(prefix);
        } catch (HostReadException e) {
            r = null;
        }
        realCache.put(prefix, r);
        return r;
    }

    void file(String real, String text) throws IOException {
        file(real, text, StandardCharsets.UTF_8);
    }

    /** A file of {@code text} in {@code cs}: UTF-8, or ISO-8859-1 for a binary file's bytes (RecordingHostSource.Read). */
    void file(String real, String text, Charset cs) throws IOException {
        Path p = out.resolve(real);
        folder(p.getParent());
        // the folder is private to this process (SnapshotTarget); never through a link all the same
        Files.writeString(p, text, cs, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
        files++;
    }

    private void folder(Path dir) throws IOException {
        if (!folders.contains(dir)) {
            Files.createDirectories(dir);
            folders.add(dir);
        }
    }
}
