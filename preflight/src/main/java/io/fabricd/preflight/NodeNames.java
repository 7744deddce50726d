package io.fabricd.preflight;

import java.util.Locale;

/**
 * Whether an agent's node name (what it signs its answers with: probe.node_name, else its host's
 * name) is the name the node list gives a node: the same, ignoring case and a trailing dot (DNS
 * names), or one the short name of the other ({@code gpu07} and {@code gpu07.cluster.local}: a
 * scheduler's short names and agents that go by their full host names). Nothing else: a node of the
 * list is judged only on answers of the agent that goes by its name.
 */
public final class NodeNames {
    private NodeNames() {
    }

    /** True when {@code listed} (the node list's) and {@code agent} (the answering agent's) name one node. */
    public static boolean same(String listed, String agent) {
        if (listed == null || agent == null) {
            return false;
        }
        String a = norm(listed);
        String b = norm(agent);
        if (a.isEmpty() || b.isEmpty()) {
            return false;
        }
        return a.equals(b) || shortOf(a, b) || shortOf(b, a);
    }

    /** True when {@code s} has no dot and is the first label of the DNS name {@code full} (not an IPv4 address). */
    private static boolean shortOf(String s, String full) {
        return s.indexOf('.') < 0 && full.startsWith(s + ".") && !full.matches("[0-9.]+");
    }

    private static String norm(String name) {
        String n = name.strip().toLowerCase(Locale.ROOT);
        return n.endsWith(".") ? n.substring(0, n.length() - 1) : n;
    }
}
