package io.fabricd.topology;

import io.fabricd.model.topology.Names;
import io.fabricd.model.topology.Placement;
import io.fabricd.model.topology.Topology;
import io.fabricd.preflight.Hostlist;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Slurm's topology.conf (topology.conf(5)) of the tree plugin ({@code SwitchName=s1 Nodes=n[1-4]},
 * {@code SwitchName=top Switches=s[1-2]}, optional {@code LinkSpeed=}) and of the block plugin
 * ({@code BlockName=b1 Nodes=...}, {@code BlockSizes=}), or both in one file. Parameter names in any
 * case, "#" comments, a trailing backslash continues a line, as Slurm reads it.
 *
 * <p>Each node's switches are its leaf (the switch whose Nodes= lists it) and the switches above it
 * to the top. A block is the node's accelerator domain: Slurm's block plugin groups nodes with a
 * faster interconnect among them than the tree between groups (an NVLink domain such as a GB200
 * NVL72 rack), and topograph writes its accelerator domains to Slurm as blocks.
 *
 * <p>Everything not understood is an error with its line: an unknown key, a line of no known kind,
 * a node under two leaves or in two blocks, a switch under two switches, a cycle of switches, a
 * switch named twice, a child switch never defined, and a tree whose nodes sit at different depths
 * (fabricd counts tiers from the leaf, so every node needs as many switches above it).
 */
final class SlurmTopologyConf {
    /** Slurm's own limit on a switch's name. */
    private static final int MAX_SWITCH_NAME = 64;
    /** The most tiers of switches read, the leaf's included: a real fabric has 2 to 4. */
    static final int MAX_TIERS = 8;

    private final String file;
    private final Map<String, Sw> switches = new LinkedHashMap<>();
    private final Map<String, Block> blocks = new LinkedHashMap<>();
    /** node -> its leaf switch and the line that says so */
    private final Map<String, Listed> leafOf = new LinkedHashMap<>();
    /** node -> its block and the line */
    private final Map<String, Listed> blockOf = new LinkedHashMap<>();
    /** switch -> the switch above it and the line */
    private final Map<String, Listed> parentOf = new LinkedHashMap<>();
    private int blockSizesLine;
    /** The current line's keys as written (lower case -> as in the file), for messages. */
    private final Map<String, String> spelled = new LinkedHashMap<>();

    private record Sw(String name, int line, boolean hasNodes, boolean hasSwitches) {
    }

    private record Block(String name, int line) {
    }

    private record Listed(String name, int line) {
    }

    private SlurmTopologyConf(String file) {
        this.file = file;
    }

    /** The topology {@code text} (the contents of {@code file}) describes; every placement's source SLURM. */
    static Topology parse(String file, String text) {
        SlurmTopologyConf p = new SlurmTopologyConf(file);
        for (SourceLines.Line l : SourceLines.of(text, true)) {
            p.line(l.number(), l.text());
        }
        return p.topology();
    }

    private TopologyFileException fail(int line, String what) {
        return new TopologyFileException(file, line, what);
    }

    private void line(int n, String text) {
        Map<String, String> kv = new LinkedHashMap<>();
        spelled.clear();
        for (String token : text.split("\\s+")) {
            int eq = token.indexOf('=');
            if (eq <= 0) {
                throw fail(n, Names.quoted(token) + " is not Key=Value: a topology.conf line is SwitchName=NAME Nodes=HOSTLIST "
                        + "(or Switches=HOSTLIST), BlockName=NAME Nodes=HOSTLIST, or BlockSizes=N,N...");
            }
            String key = token.substring(0, eq).toLowerCase(Locale.ROOT);
            String value = token.substring(eq + 1);
            if (value.isEmpty()) {
                throw fail(n, token.substring(0, eq) + "= has no value: give one or leave the key out");
            }
            spelled.put(key, token.substring(0, eq));
            if (kv.put(key, value) != null) {
                throw fail(n, token.substring(0, eq) + " is given twice on the line: give it once");
            }
        }
        String first = kv.keySet().iterator().next();
        switch (first) {
            case "switchname" -> switchLine(n, kv);
            case "blockname" -> blockLine(n, kv);
            case "blocksizes" -> blockSizes(n, kv);
            case "ringname" -> throw fail(n, "RingName: Slurm's topology/ring is not a tree or blocks; fabricd reads topology/tree "
                    + "(SwitchName=) and topology/block (BlockName=) lines; give the fabric as a plain topology file instead");
            default -> throw fail(n, "a line starts with SwitchName=, BlockName= or BlockSizes=, not " + Names.quoted(spelled.get(first))
                    + (kv.containsKey("switchname") || kv.containsKey("blockname") ? ": put the name first" : ""));
        }
    }

    private void switchLine(int n, Map<String, String> kv) {
        allowed(n, kv, "SwitchName", "SwitchName, Nodes, Switches, LinkSpeed", "switchname", "nodes", "switches", "linkspeed");
        String name = kv.get("switchname");
        if (!Names.valid(name) || name.length() > MAX_SWITCH_NAME) {
            throw fail(n, "SwitchName=" + Names.quoted(name) + " is not a switch name: 1 to " + MAX_SWITCH_NAME
                    + " letters, digits and . _ - : /, starting with a letter or digit");
        }
        Sw before = switches.get(name);
        if (before != null) {
            throw fail(n, "switch " + name + " is defined twice, on lines " + before.line() + " and " + n + ": define it once");
        }
        if (blocks.containsKey(name)) {
            throw fail(n, name + " is a block (line " + blocks.get(name).line() + ") and a switch: give them different names");
        }
        String speed = kv.get("linkspeed");
        if (speed != null && !speed.matches("\\d{1,18}")) {
            throw fail(n, "LinkSpeed=" + Names.quoted(speed) + " is not a whole number");
        }
        if (kv.containsKey("nodes") && kv.containsKey("switches")) {
            throw fail(n, "switch " + name + " has both Nodes= and Switches=: fabricd places nodes under leaf switches, "
                    + "so give the nodes a leaf switch of their own under " + name);
        }
        switches.put(name, new Sw(name, n, kv.containsKey("nodes"), kv.containsKey("switches")));
        for (String node : names(n, "Nodes", kv.get("nodes"))) {
            Listed was = leafOf.putIfAbsent(node, new Listed(name, n));
            if (was != null) {
                throw fail(n, "node " + node + " is under switch " + was.name() + " (line " + was.line() + ") and under switch "
                        + name + " (line " + n + "): a node's cable reaches one leaf; list it once");
            }
        }
        if (leafOf.size() > TopologyFiles.MAX_NODES) {
            throw TopologyFiles.tooManyNodes(file, n);
        }
        for (String child : names(n, "Switches", kv.get("switches"))) {
            if (child.equals(name)) {
                throw fail(n, "switch " + name + " lists itself in Switches=");
            }
            Listed was = parentOf.putIfAbsent(child, new Listed(name, n));
            if (was != null) {
                throw fail(n, "switch " + child + " is under switch " + was.name() + " (line " + was.line() + ") and under switch "
                        + name + " (line " + n + "): a tree has one switch above each; list it once");
            }
        }
    }

    private void blockLine(int n, Map<String, String> kv) {
        allowed(n, kv, "BlockName", "BlockName, Nodes", "blockname", "nodes");
        String name = kv.get("blockname");
        if (!Names.valid(name)) {
            throw fail(n, "BlockName=" + Names.quoted(name) + " is not a block name: letters, digits and . _ - : /, "
                    + "starting with a letter or digit");
        }
        Block before = blocks.get(name);
        if (before != null) {
            throw fail(n, "block " + name + " is defined twice, on lines " + before.line() + " and " + n + ": define it once");
        }
        if (switches.containsKey(name)) {
            throw fail(n, name + " is a switch (line " + switches.get(name).line() + ") and a block: give them different names");
        }
        blocks.put(name, new Block(name, n));
        for (String node : names(n, "Nodes", kv.get("nodes"))) {
            Listed was = blockOf.putIfAbsent(node, new Listed(name, n));
            if (was != null) {
                throw fail(n, "node " + node + " is in block " + was.name() + " (line " + was.line() + ") and in block " + name
                        + " (line " + n + "): a node is in one block; list it once");
            }
        }
        if (blockOf.size() > TopologyFiles.MAX_NODES) {
            throw TopologyFiles.tooManyNodes(file, n);
        }
    }

    private void blockSizes(int n, Map<String, String> kv) {
        allowed(n, kv, "BlockSizes", "BlockSizes alone", "blocksizes");
        if (blockSizesLine > 0) {
            throw fail(n, "BlockSizes is given twice, on lines " + blockSizesLine + " and " + n + ": give it once");
        }
        blockSizesLine = n;
        for (String size : kv.get("blocksizes").split(",", -1)) {
            if (!size.matches("[1-9]\\d{0,8}")) {
                throw fail(n, "BlockSizes=" + Names.quoted(kv.get("blocksizes")) + ": " + Names.quoted(size)
                        + " is not a positive whole number; write sizes as BlockSizes=18,72");
            }
        }
    }

    /** Every key of the line one its kind takes. */
    private void allowed(int n, Map<String, String> kv, String kind, String takes, String... keys) {
        List<String> known = List.of(keys);
        for (String k : kv.keySet()) {
            if (!known.contains(k)) {
                throw fail(n, "unknown key " + Names.quoted(spelled.get(k)) + " on a " + kind + " line: it takes " + takes);
            }
        }
    }

    /** A hostlist value as its names, each a valid name; none when absent. */
    private List<String> names(int n, String key, String expr) {
        if (expr == null) {
            return List.of();
        }
        List<String> out;
        try {
            out = Hostlist.parse(expr);
        } catch (IllegalArgumentException e) {
            throw fail(n, key + "=: " + TopologyFiles.hostlistProblem(e));
        }
        for (String s : out) {
            if (!Names.valid(s)) {
                throw fail(n, key + "=: " + Names.quoted(s) + " is not a name");
            }
        }
        return out;
    }

    private Topology topology() {
        parentOf.forEach((child, parent) -> {
            if (!switches.containsKey(child)) {
                throw fail(parent.line(), "switch " + child + " in Switches= of " + parent.name() + " is never defined: add a line "
                        + "SwitchName=" + child + " with its Nodes= or Switches=, or take it out");
            }
        });
        refuseCycles();
        Map<String, Integer> tiers = new LinkedHashMap<>();
        Map<String, String> tierSetBy = new LinkedHashMap<>(); // switch -> the leaf whose path set its tier
        Map<String, List<String>> paths = new LinkedHashMap<>();
        for (Sw leaf : switches.values()) {
            if (leaf.hasSwitches()) {
                continue;
            }
            List<String> path = new ArrayList<>();
            for (String s = leaf.name(); s != null; s = above(s)) {
                if (path.size() == MAX_TIERS) {
                    Listed listing = parentOf.get(path.get(MAX_TIERS - 1));
                    throw fail(listing.line(), "switch " + s + " is tier " + MAX_TIERS + " (counting the leaf as 0) above leaf "
                            + leaf.name() + ": fabricd reads at most " + MAX_TIERS + " tiers of switches (a fabric has 2 to 4); "
                            + "check the Switches= lines above " + leaf.name());
                }
                path.add(s);
                Integer was = tiers.putIfAbsent(s, path.size() - 1);
                if (was != null && was != path.size() - 1) {
                    Sw other = switches.get(tierSetBy.get(s));
                    throw fail(leaf.line(), "switch " + s + " is at tier " + was + " above leaf " + other.name() + " (line "
                            + other.line() + ") but at tier " + (path.size() - 1) + " above leaf " + leaf.name() + " (line " + leaf.line()
                            + "): fabricd counts tiers from the leaf, so every leaf needs as many switches above it; "
                            + "give the shorter branch its missing tier, or give the fabric as a plain topology file");
                }
                tierSetBy.putIfAbsent(s, leaf.name());
            }
            paths.put(leaf.name(), path);
        }
        List<Placement> placements = new ArrayList<>();
        leafOf.forEach((node, leaf) -> {
            if (switches.containsKey(node) || blocks.containsKey(node)) {
                throw fail(leaf.line(), node + " is a node here and a " + (switches.containsKey(node) ? "switch" : "block")
                        + " elsewhere: give them different names");
            }
            Listed block = blockOf.get(node);
            placements.add(new Placement(node, paths.get(leaf.name()), block == null ? null : block.name(), Placement.Source.SLURM));
        });
        blockOf.forEach((node, block) -> {
            if (!leafOf.containsKey(node)) {
                if (switches.containsKey(node)) {
                    throw fail(block.line(), node + " is a node here and a switch elsewhere: give them different names");
                }
                placements.add(new Placement(node, List.of(), block.name(), Placement.Source.SLURM));
            }
        });
        try {
            return Topology.of(placements);
        } catch (IllegalArgumentException e) { // the checks above leave nothing for it; a last line of defence
            throw new TopologyFileException(file, 0, e.getMessage());
        }
    }

    private String above(String sw) {
        Listed p = parentOf.get(sw);
        return p == null ? null : p.name();
    }

    /**
     * Every switch ends at a top: no switches above one another all round. Each switch is walked
     * once (a walk stops at a switch already known to end at a top), from the leaves first, so the
     * time grows with the number of switches, not its square or cube.
     */
    private void refuseCycles() {
        Set<String> endsAtTop = new HashSet<>();
        List<String> starts = new ArrayList<>();
        switches.values().stream().filter(sw -> !sw.hasSwitches()).forEach(sw -> starts.add(sw.name()));
        starts.addAll(parentOf.keySet());
        for (String start : starts) {
            List<String> path = new ArrayList<>();
            Set<String> onPath = new HashSet<>();
            for (String s = start; s != null && !endsAtTop.contains(s); s = above(s)) {
                if (!onPath.add(s)) {
                    throw cycle(path, s);
                }
                path.add(s);
            }
            endsAtTop.addAll(path);
        }
    }

    private TopologyFileException cycle(List<String> path, String again) {
        List<String> loop = new ArrayList<>(path.subList(path.indexOf(again), path.size()));
        loop.add(again);
        List<String> lines = new ArrayList<>();
        for (int i = 0; i + 1 < loop.size(); i++) {
            lines.add(Integer.toString(parentOf.get(loop.get(i)).line()));
        }
        Listed closing = parentOf.get(loop.get(loop.size() - 2));
        int shown = loop.size() - 1; // a long cycle is named by its first switches, the line stays short
        String named = shown <= MAX_TIERS ? String.join(" < ", loop) + " (lines " + String.join(", ", lines) + ")"
                : String.join(" < ", loop.subList(0, MAX_TIERS)) + " < ... (" + shown + " switches, lines "
                + String.join(", ", lines.subList(0, MAX_TIERS)) + ", ...)";
        return fail(closing.line(), "the switches form a cycle: " + named
                + ": a tree has a top; take one of them out of the Switches= of the switch above it");
    }
}
