package io.fabricd.gate;

import io.fabricd.preflight.Hostlist;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The node set of {@code fabricd preflight --nodes EXPR}: a Slurm hostlist ({@code gpu[001-064,070]}),
 * or a file ({@code @FILE}, or a value with a '/', which no node name has: {@code ./nodes.txt}) with
 * one entry per line and {@code #} comments; a bare name is a node's even when a file of that name
 * lies in the working folder. An entry is a name (its agent at NAME:PORT) or NAME=HOST:PORT (its agent elsewhere,
 * for agents behind other addresses or on one test host). Order kept, duplicates counted once.
 */
public final class NodeSet {
    /** Largest node set (as Hostlist.parse). */
    public static final int MAX_NODES = 100_000;
    /** Largest node file read. */
    static final long MAX_FILE_BYTES = 32L << 20;

    /** One node: its name as the scheduler says it, and its agent's HTTP address HOST:PORT. */
    public record Node(String name, String address) {
    }

    private NodeSet() {
    }

    /**
     * The nodes of {@code expr}; IllegalArgumentException with one line for an empty or malformed
     * set, IOException for a file that cannot be read.
     */
    public static List<Node> parse(String expr, int port) throws IOException {
        if (expr == null || expr.isBlank()) {
            throw new IllegalArgumentException("--nodes is empty: give a hostlist like gpu[001-064] or @FILE with one name per line");
        }
        String e = expr.strip();
        Path file = e.startsWith("@") ? path(e.substring(1)) : e.indexOf('/') >= 0 ? path(e) : null;
        Map<String, Node> nodes = new LinkedHashMap<>();
        if (file == null) {
            entries(e, port, "--nodes", nodes);
        } else {
            int n = 0;
            for (String line : lines(file)) {
                n++;
                int hash = line.indexOf('#');
                String l = (hash >= 0 ? line.substring(0, hash) : line).strip();
                if (!l.isEmpty()) {
                    entries(l, port, file + " line " + n, nodes);
                }
            }
        }
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("--nodes " + quote(e) + " names no node: give a hostlist like gpu[001-064] or a file"
                    + " with one name per line");
        }
        return List.copyOf(nodes.values());
    }

    /** The file {@code text} names; a one-line IllegalArgumentException when it names none. */
    private static Path path(String text) {
        try {
            return Path.of(text);
        } catch (InvalidPathException x) {
            throw new IllegalArgumentException("--nodes " + quote(text) + " is not a file name: give @FILE or a hostlist", x);
        }
    }

    private static List<String> lines(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] b = in.readNBytes((int) MAX_FILE_BYTES + 1);
            if (b.length > MAX_FILE_BYTES) {
                throw new IllegalArgumentException("--nodes " + file + " is larger than " + (MAX_FILE_BYTES >> 20) + " MiB: not a node list");
            }
            return new String(b, StandardCharsets.UTF_8).lines().toList();
        } catch (NoSuchFileException x) {
            throw new IOException("--nodes " + file + ": no such file");
        } catch (IOException x) {
            throw new IOException("--nodes " + file + ": cannot read it (" + x.getMessage() + ")");
        }
    }

    /** The entries of one hostlist expression (top-level commas; NAME=HOST:PORT items) into {@code nodes}. */
    private static void entries(String expr, int port, String where, Map<String, Node> nodes) {
        for (String item : splitTopLevel(expr, where)) {
            String it = item.strip();
            if (it.isEmpty()) {
                throw new IllegalArgumentException(where + ": empty name in " + quote(expr) + " (two commas, or one at an end)");
            }
            int eq = it.indexOf('=');
            if (eq >= 0) {
                String name = it.substring(0, eq).strip();
                String address = it.substring(eq + 1).strip();
                checkName(name, where);
                if (!isHostPort(address)) {
                    throw new IllegalArgumentException(where + ": " + quote(it) + " is not NAME=HOST:PORT");
                }
                add(nodes, new Node(name, address), where);
                continue;
            }
            List<String> names;
            try {
                names = Hostlist.parse(it);
            } catch (IllegalArgumentException x) {
                throw new IllegalArgumentException(where + ": " + x.getMessage());
            }
            for (String name : names) {
                checkName(name, where);
                add(nodes, new Node(name, (name.indexOf(':') >= 0 ? "[" + name + "]" : name) + ":" + port), where);
            }
        }
    }

    private static void add(Map<String, Node> nodes, Node n, String where) {
        Node before = nodes.putIfAbsent(n.name(), n);
        if (before != null && !before.address().equals(n.address())) {
            throw new IllegalArgumentException(where + ": node " + n.name() + " given twice, at " + before.address() + " and " + n.address());
        }
        if (nodes.size() > MAX_NODES) {
            throw new IllegalArgumentException(where + ": more than " + MAX_NODES + " nodes");
        }
    }

    /** Items separated by commas outside brackets ("a[1-2],b3" is two). */
    static List<String> splitTopLevel(String expr, String where) {
        List<String> out = new ArrayList<>();
        int depth = 0;
        int from = 0;
        for (int i = 0; i < expr.length(); i++) {
            char c = expr.charAt(i);
            if (c == '[') {
                depth++;
            } else if (c == ']') {
                depth--;
                if (depth < 0) {
                    throw new IllegalArgumentException(where + ": ']' without '[' in " + quote(expr));
                }
            } else if (c == ',' && depth == 0) {
                out.add(expr.substring(from, i));
                from = i + 1;
            }
        }
        if (depth != 0) {
            throw new IllegalArgumentException(where + ": '[' without ']' in " + quote(expr));
        }
        out.add(expr.substring(from));
        return out;
    }

    private static void checkName(String name, String where) {
        if (name.isEmpty() || !name.chars().allMatch(c -> c > ' ' && c < 127 && c != '/' && c != '@' && c != '=' && c != '#')) {
            throw new IllegalArgumentException(where + ": " + quote(name) + " is not a node name");
        }
    }

    /** HOST:PORT as the agents' HTTP address ([v6]:port for IPv6), no user, no path. */
    static boolean isHostPort(String a) {
        try {
            URI uri = URI.create("http://" + a + "/");
            return uri.getHost() != null && uri.getPort() > 0 && uri.getPort() < 65536 && uri.getRawUserInfo() == null
                    && a.equals(uri.getRawAuthority());
        } catch (IllegalArgumentException x) {
            return false;
        }
    }

    /** At most 40 characters of user text, quoted, control characters as '?'. */
    static String quote(String s) {
        String t = s.length() > 40 ? s.substring(0, 40) + "..." : s;
        return "'" + t.replaceAll("\\p{Cntrl}", "?") + "'";
    }
}
