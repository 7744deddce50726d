package io.fabricd.preflight;

import io.fabricd.preflight.LinkJudge.Measure;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Who is to blame for each bad link. A link with an end already excluded or unknown (its findings,
 * its agent) is that end's. Of the rest, a node is excluded when, on one measure (probes, or
 * bandwidth), it is in bad links with at least two distinct partners and more of those than its
 * links that passed on that measure: most bad partners first (then fewest good links, then the set's
 * order), and its links are not held against its partners. A bad link left whose both ends passed
 * elsewhere on what it failed is the link's; one whose end did not is a suspect, and that end
 * unknown until re-pairing tells.
 *
 * <p>A good link counts against bad evidence of its own measure only: a link that passed on probes
 * alone (a repair round's) says nothing of a node's bandwidth, so it clears neither a node whose bad
 * links are slow on bandwidth nor such a link's end ({@link Measure}).
 */
final class Localiser {

    /**
     * @param blame per bad link: {@link LinkVerdict#BLAME_LINK}, a node's name, or {@link LinkVerdict#BLAME_UNKNOWN}
     * @param excluded the nodes excluded for their bad links, each with its bad partners
     * @param undecided the nodes in suspects without a good link on what those failed, each with the partners of those
     */
    record Result(Map<Pair, String> blame, Map<String, List<String>> excluded, Map<String, List<String>> undecided, List<Pair> suspects) {
    }

    private Localiser() {
    }

    static Result run(Map<String, Integer> order, Map<String, Verdict> pre, List<LinkJudge.Call> calls) {
        Map<Pair, String> blame = new HashMap<>();
        Passes passed = new Passes();
        List<LinkJudge.Call> open = new ArrayList<>();
        for (LinkJudge.Call c : calls) {
            LinkStats l = c.stats();
            if (c.verdict() == Verdict.PASS) {
                passed.add(l.a, c.judged());
                passed.add(l.b, c.judged());
            } else if (c.bad() && pre.get(l.a) != Verdict.PASS) {
                blame.put(l.pair(), l.a);
            } else if (c.bad() && pre.get(l.b) != Verdict.PASS) {
                blame.put(l.pair(), l.b);
            } else if (c.bad()) {
                open.add(c);
            }
        }
        // per node, its bad partners and what the link with each failed
        Map<String, Map<String, Set<Measure>>> partners = new LinkedHashMap<>();
        for (LinkJudge.Call c : open) {
            LinkStats l = c.stats();
            partners.computeIfAbsent(l.a, k -> new TreeMap<>()).computeIfAbsent(l.b, k -> EnumSet.noneOf(Measure.class)).addAll(c.badKinds());
            partners.computeIfAbsent(l.b, k -> new TreeMap<>()).computeIfAbsent(l.a, k -> EnumSet.noneOf(Measure.class)).addAll(c.badKinds());
        }
        Map<String, List<String>> excluded = new LinkedHashMap<>();
        TreeSet<Rank> queue = new TreeSet<>();
        partners.forEach((node, bad) -> offer(queue, node, bad, passed, order));
        while (!queue.isEmpty()) {
            String worst = queue.pollFirst().node();
            Map<String, Set<Measure>> bad = partners.remove(worst);
            excluded.put(worst, inOrder(bad.keySet(), order));
            for (String p : bad.keySet()) {
                Map<String, Set<Measure>> theirs = partners.get(p);
                queue.remove(new Rank(p, theirs.size(), passed.of(p, Set.of()), order.get(p)));
                theirs.remove(worst);
                offer(queue, p, theirs, passed, order);
            }
        }
        Map<String, List<String>> undecided = new LinkedHashMap<>();
        List<Pair> suspects = new ArrayList<>();
        for (LinkJudge.Call c : open) {
            LinkStats l = c.stats();
            boolean goodA = passed.covers(l.a, c.badKinds());
            boolean goodB = passed.covers(l.b, c.badKinds());
            String end = excluded.containsKey(l.a) ? l.a : excluded.containsKey(l.b) ? l.b : null;
            if (end != null) {
                blame.put(l.pair(), end);
                continue;
            }
            if (goodA && goodB) {
                blame.put(l.pair(), LinkVerdict.BLAME_LINK);
                continue;
            }
            blame.put(l.pair(), LinkVerdict.BLAME_UNKNOWN);
            suspects.add(l.pair());
            if (!goodA) {
                undecided.computeIfAbsent(l.a, k -> new ArrayList<>()).add(l.b);
            }
            if (!goodB) {
                undecided.computeIfAbsent(l.b, k -> new ArrayList<>()).add(l.a);
            }
        }
        return new Result(blame, excluded, undecided, suspects);
    }

    /** Per node, what judged each of its links that passed (probes, bandwidth, both). */
    private static final class Passes {
        private final Map<String, List<Set<Measure>>> byNode = new HashMap<>();

        void add(String node, Set<Measure> judged) {
            byNode.computeIfAbsent(node, k -> new ArrayList<>()).add(judged);
        }

        /** The node's links that passed on every measure of {@code kinds} (all its passes for none). */
        int of(String node, Set<Measure> kinds) {
            return (int) byNode.getOrDefault(node, List.of()).stream().filter(j -> j.containsAll(kinds)).count();
        }

        /** Whether the node passed elsewhere on each measure of {@code kinds} (by one link or several). */
        boolean covers(String node, Set<Measure> kinds) {
            return kinds.stream().allMatch(m -> of(node, Set.of(m)) > 0);
        }
    }

    /**
     * Queues a node while it may be excluded: on some measure, at least two bad partners and more of
     * them than its links that passed on that measure (a node that re-pairing found good elsewhere is
     * not excluded for two bad cables). Its bad partners only go down, so a node leaves the queue for good.
     */
    private static void offer(TreeSet<Rank> queue, String node, Map<String, Set<Measure>> bad, Passes passed, Map<String, Integer> order) {
        for (Measure m : Measure.values()) {
            long badOn = bad.values().stream().filter(kinds -> kinds.contains(m)).count();
            if (badOn >= 2 && badOn > passed.of(node, Set.of(m))) {
                queue.add(new Rank(node, bad.size(), passed.of(node, Set.of()), order.get(node)));
                return;
            }
        }
    }

    /** The most bad partners first, then the fewest links passed, then first in the set. */
    private record Rank(String node, int bad, int passed, int order) implements Comparable<Rank> {
        @Override
        public int compareTo(Rank o) {
            int c = Integer.compare(o.bad, bad);
            c = c != 0 ? c : Integer.compare(passed, o.passed);
            return c != 0 ? c : Integer.compare(order, o.order);
        }
    }

    private static List<String> inOrder(Collection<String> names, Map<String, Integer> order) {
        List<String> out = new ArrayList<>(names);
        out.sort((x, y) -> Integer.compare(order.get(x), order.get(y)));
        return out;
    }
}
