package io.fabricd.collectors.source;

import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HashSet;
import java.util.Set;

/**
 * Reader for ttar text archives (the format prometheus/procfs keeps its sysfs fixtures in, and the
 * format fabricd bundles its demo host in): records of {@code Directory: P}, {@code Path: P} followed
 * by {@code Lines: N} and N lines (a last line ending in {@code EOF} has no final newline,
 * {@code NULLBYTE} stands for a NUL byte) or by {@code SymlinkTo: T}, each optionally followed by
 * {@code Mode: NNN}. Records are separated by comment lines starting with '#'. fabricd adds one
 * record of its own for binary files (a PCI function's {@code config}): {@code Base64: N} and N lines
 * of base64 that decode to the file's bytes.
 */
public final class Ttar {
    private Ttar() {
    }

    /**
     * Extracts an archive into {@code dest}, dropping {@code stripPrefix} from every path.
     *
     * @throws IOException on a malformed archive or a path that would leave {@code dest}
     */
    public static void extract(BufferedReader in, Path dest, String stripPrefix) throws IOException {
        Path base = dest.toAbsolutePath().normalize();
        Files.createDirectories(base);
        String line;
        int lineNo = 0;
        Path current = null;
        // folders made so far: Files.createDirectories on an existing folder throws and catches an
        // exception inside, which made unpacking the demo (1 200 files) take 2 s of a 2.5 s start
        Set<Path> made = new HashSet<>();
        made.add(base);
        while ((line = in.readLine()) != null) {
            lineNo++;
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            if (line.startsWith("Directory: ")) {
                current = target(base, line.substring(11), stripPrefix, lineNo);
                if (made.add(current)) {
                    Files.createDirectories(current);
                }
            } else if (line.startsWith("Path: ")) {
                current = target(base, line.substring(6), stripPrefix, lineNo);
                if (made.add(current.getParent())) {
                    Files.createDirectories(current.getParent());
                }
            } else if (line.startsWith("Lines: ")) {
                if (current == null) {
                    throw new IOException("ttar line " + lineNo + ": Lines without Path");
                }
                String[] lines = take(in, Integer.parseInt(line.substring(7).strip()), current);
                lineNo += lines.length;
                StringBuilder sb = new StringBuilder();
                for (int i = 0; i < lines.length; i++) {
                    String l = lines[i];
                    if (i == lines.length - 1 && l.endsWith("EOF")) {
                        sb.append(l, 0, l.length() - 3);
                    } else {
                        sb.append(l).append('\n');
                    }
                }
                String text = sb.indexOf("NULLBYTE") >= 0 ? sb.toString().replace("NULLBYTE", "\0") : sb.toString();
                try (OutputStream out = new FileOutputStream(current.toFile())) {
                    out.write(text.getBytes(StandardCharsets.UTF_8));
                }
            } else if (line.startsWith("Base64: ")) {
                if (current == null) {
                    throw new IOException("ttar line " + lineNo + ": Base64 without Path");
                }
                String[] lines = take(in, Integer.parseInt(line.substring(8).strip()), current);
                lineNo += lines.length;
                byte[] bytes;
                try {
                    bytes = Base64.getDecoder().decode(String.join("", lines).replaceAll("\\s", ""));
                } catch (IllegalArgumentException e) {
                    throw new IOException("ttar line " + lineNo + ": bad base64 in " + current + ": " + e.getMessage());
                }
                try (OutputStream out = new FileOutputStream(current.toFile())) {
                    out.write(bytes);
                }
            } else if (line.startsWith("SymlinkTo: ")) {
                if (current == null) {
                    throw new IOException("ttar line " + lineNo + ": SymlinkTo without Path");
                }
                Files.deleteIfExists(current);
                Files.createSymbolicLink(current, Path.of(line.substring(11)));
            } else if (line.startsWith("Mode: ")) {
                // permissions are not needed: fabricd reads as whoever runs it
                continue;
            } else {
                throw new IOException("ttar line " + lineNo + ": unexpected '" + line + "'");
            }
        }
    }

    private static Path target(Path base, String p, String stripPrefix, int lineNo) throws IOException {
        String rel = p;
        if (stripPrefix != null && !stripPrefix.isEmpty() && rel.startsWith(stripPrefix)) {
            rel = rel.substring(stripPrefix.length());
        }
        while (rel.startsWith("/")) {
            rel = rel.substring(1);
        }
        Path t = base.resolve(rel).normalize();
        if (!t.startsWith(base)) {
            throw new IOException("ttar line " + lineNo + ": path " + p + " leaves the destination");
        }
        return t;
    }

    /** The next {@code n} lines of a record of {@code current}. */
    private static String[] take(BufferedReader in, int n, Path current) throws IOException {
        String[] lines = new String[n];
        for (int i = 0; i < n; i++) {
            lines[i] = in.readLine();
            if (lines[i] == null) {
                throw new IOException("ttar: archive ends inside " + current);
            }
        }
        return lines;
    }
}
