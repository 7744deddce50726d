package io.fabricd.topology;

import io.fabricd.model.topology.Names;
import io.fabricd.model.topology.Placement;
import io.fabricd.model.topology.Topology;
import io.fabricd.preflight.Hostlist;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * fabricd's plain topology file, for sites with neither Slurm's topology.conf nor topograph: one line
 * per node or Slurm hostlist of nodes, then where they sit as {@code key=value} words, "#" comments:
 *
 * <pre>
 * gpu[001-032]  leaf=leaf-01 spine=spine-1 core=core-a accelerator=nvl72-1
 * gpu[033-064]  leaf=leaf-02 spine=spine-1 core=core-a
 * login01       leaf=leaf-09
 * </pre>
 *
 * The keys are {@code leaf}, {@code spine}, {@code core} (the switches from the node up, each needing
 * the one below it) and {@code accelerator} (the NVLink domain); at least one. An unknown key, a key
 * given twice, a value that is not a name, and a node on two lines are errors with their line.
 */
final class PlainTopologyFile {
    private static final List<String> TIERS = List.of("leaf", "spine", "core");
    private static final String KEYS = "leaf, spine, core, accelerator";

    private PlainTopologyFile() {
    }

    /** The topology {@code text} (the contents of {@code file}) describes; every placement's source FILE. */
    static Topology parse(String file, String text) {
        Map<String, Integer> lineOf = new LinkedHashMap<>();
        Map<String, Seen> seen = new LinkedHashMap<>(); // switch -> its tier and the switch above, as first given
        List<Placement> placements = new ArrayList<>();
        for (SourceLines.Line l : SourceLines.of(text, false)) {
            int n = l.number();
            String[] words = l.text().split("\\s+");
            if (words[0].contains("=")) {
                throw new TopologyFileException(file, n, "the line starts with " + Names.quoted(words[0]) + ", not the node: write "
                        + "NODES key=value..., such as gpu[001-032] leaf=leaf-01 spine=spine-1");
            }
            List<String> nodes;
            try {
                nodes = Hostlist.parse(words[0]);
            } catch (IllegalArgumentException e) {
                throw new TopologyFileException(file, n, TopologyFiles.hostlistProblem(e));
            }
            Map<String, String> kv = values(file, n, words);
            List<String> switches = new ArrayList<>();
            for (String tier : TIERS) {
                String sw = kv.get(tier);
                if (sw != null && switches.size() < TIERS.indexOf(tier)) {
                    throw new TopologyFileException(file, n, tier + "= without " + TIERS.get(TIERS.indexOf(tier) - 1)
                            + "=: give the switches from the node up (leaf, then spine, then core)");
                }
                if (sw != null) {
                    switches.add(sw);
                }
            }
            agree(file, n, switches, seen);
            for (String node : nodes) {
                Integer was = lineOf.putIfAbsent(node, n);
                if (was != null) {
                    throw new TopologyFileException(file, n, "node " + node + " is on line " + was + " and on line " + n
                            + ": a node sits in one place; list it once");
                }
                if (lineOf.size() > TopologyFiles.MAX_NODES) {
                    throw TopologyFiles.tooManyNodes(file, n);
                }
                placements.add(new Placement(node, switches, kv.get("accelerator"), Placement.Source.FILE));
            }
        }
        try {
            return Topology.of(placements);
        } catch (IllegalArgumentException e) { // a switch under two switches, at two tiers, or named like a node
            throw new TopologyFileException(file, 0, e.getMessage() + "; correct the lines of those nodes");
        }
    }

    private record Seen(int tier, String above, int line) {
    }

    /** Each switch at one tier under one switch: the line that said otherwise before is named. */
    private static void agree(String file, int n, List<String> switches, Map<String, Seen> seen) {
        for (int t = 0; t < switches.size(); t++) {
            String sw = switches.get(t);
            String above = t + 1 < switches.size() ? switches.get(t + 1) : null;
            Seen was = seen.putIfAbsent(sw, new Seen(t, above, n));
            if (was == null) {
                continue;
            }
            if (was.tier() != t) {
                throw new TopologyFileException(file, n, "switch " + sw + " is " + TIERS.get(t) + " here but "
                        + TIERS.get(was.tier()) + " on line " + was.line() + ": a switch sits at one tier");
            }
            if (above != null && was.above() != null && !above.equals(was.above())) {
                throw new TopologyFileException(file, n, "switch " + sw + " is under " + above + " here but under " + was.above()
                        + " on line " + was.line() + ": a tree has one switch above each");
            }
            if (was.above() == null && above != null) {
                seen.put(sw, new Seen(t, above, n));
            }
        }
    }

    private static Map<String, String> values(String file, int n, String[] words) {
        if (words.length < 2) {
            throw new TopologyFileException(file, n, "node " + Names.quoted(words[0]) + " without a place: add leaf=, spine=, core= "
                    + "or accelerator=");
        }
        Map<String, String> kv = new LinkedHashMap<>();
        for (int i = 1; i < words.length; i++) {
            int eq = words[i].indexOf('=');
            if (eq <= 0) {
                throw new TopologyFileException(file, n, Names.quoted(words[i]) + " is not key=value: the keys are " + KEYS);
            }
            String key = words[i].substring(0, eq);
            String value = words[i].substring(eq + 1);
            if (!TIERS.contains(key) && !"accelerator".equals(key)) {
                throw new TopologyFileException(file, n, "unknown key " + Names.quoted(key) + ": the keys are " + KEYS);
            }
            if (!Names.valid(value)) {
                throw new TopologyFileException(file, n, key + "=" + Names.quoted(value) + " is not a name: letters, digits and "
                        + ". _ - : /, starting with a letter or digit");
            }
            if (kv.put(key, value) != null) {
                throw new TopologyFileException(file, n, key + "= is given twice on the line: give it once");
            }
        }
        return kv;
    }
}
