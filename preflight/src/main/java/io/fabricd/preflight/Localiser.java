package io.fabricd.preflight;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Who is to blame for each bad link. A link with an end already excluded or unknown (its findings,
 * its agent) is that end's. Of the rest, a node in bad links with at least two distinct partners, and
 * more of those than links that passed, is excluded, most bad partners first (then fewest good links,
 * then the set's order), and its links are not held against its partners. A bad link left whose both ends have a good link elsewhere is the
 * link's; one whose end has none is a suspect, and that end unknown until re-pairing tells.
 */
final class Localiser {
    /**
     * @param blame per bad link: {@link Evidence#BLAME_LINK}, a node's name, or {@link Evidence#BLAME_UNKNOWN}
     * @param excluded the nodes excluded for their bad links, each with its bad partners
     * @param undecided the nodes in suspects without a good link, each with the partners of those
     */
    record Result(Map<Pair, String> blame, Map<String, List<String>> excluded, Map<String, List<String>> undecided, List<Pair> suspects) {
    }

    private Localiser() {
    }

    static Result run(Map<String, Integer> order, Map<String, Verdict> pre, List<LinkJudge.Call> calls) {
        Map<Pair, String> blame = new HashMap<>();
        Map<String, Integer> passed = new HashMap<>();
        List<LinkStats> open = new ArrayList<>();
        for (LinkJudge.Call c : calls) {
            LinkStats l = c.stats();
            if (c.verdict() == Verdict.PASS) {
                passed.merge(l.a, 1, Integer::sum);
                passed.merge(l.b, 1, Integer::sum);
            } else if (c.bad() && pre.get(l.a) != Verdict.PASS) {
                blame.put(l.pair(), l.a);
            } else if (c.bad() && pre.get(l.b) != Verdict.PASS) {
                blame.put(l.pair(), l.b);
            } else if (c.bad()) {
                open.add(l);
            }
        }
        Map<String, Set<String>> partners = new LinkedHashMap<>();
        for (LinkStats l : open) {
            partners.computeIfAbsent(l.a, k -> new TreeSet<>()).add(l.b);
            partners.computeIfAbsent(l.b, k -> new TreeSet<>()).add(l.a);
        }
        Map<String, List<String>> excluded = new LinkedHashMap<>();
        TreeSet<Rank> queue = new TreeSet<>();
        partners.forEach((node, bad) -> offer(queue, node, bad.size(), passed, order));
        while (!queue.isEmpty()) {
            String worst = queue.pollFirst().node();
            Set<String> bad = partners.remove(worst);
            excluded.put(worst, inOrder(bad, order));
            for (String p : bad) {
                Set<String> theirs = partners.get(p);
                queue.remove(new Rank(p, theirs.size(), passed.getOrDefault(p, 0), order.get(p)));
                theirs.remove(worst);
                offer(queue, p, theirs.size(), passed, order);
            }
        }
        Map<String, List<String>> undecided = new LinkedHashMap<>();
        List<Pair> suspects = new ArrayList<>();
        for (LinkStats l : open) {
            String end = excluded.containsKey(l.a) ? l.a : excluded.containsKey(l.b) ? l.b : null;
            if (end != null) {
                blame.put(l.pair(), end);
                continue;
            }
            boolean goodA = passed.getOrDefault(l.a, 0) > 0;
            boolean goodB = passed.getOrDefault(l.b, 0) > 0;
            if (goodA && goodB) {
                blame.put(l.pair(), Evidence.BLAME_LINK);
                continue;
            }
            blame.put(l.pair(), Evidence.BLAME_UNKNOWN);
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

    /**
     * Queues a node while it may be excluded: at least two bad partners, and more of them than its
     * links that passed (a node that re-pairing found good elsewhere is not excluded for two bad
     * cables). Its bad partners only go down, so a node leaves the queue for good.
     */
    private static void offer(TreeSet<Rank> queue, String node, int bad, Map<String, Integer> passed, Map<String, Integer> order) {
        int good = passed.getOrDefault(node, 0);
        if (bad >= 2 && bad > good) {
            queue.add(new Rank(node, bad, good, order.get(node)));
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

    private static List<String> inOrder(Set<String> names, Map<String, Integer> order) {
        List<String> out = new ArrayList<>(names);
        out.sort((x, y) -> Integer.compare(order.get(x), order.get(y)));
        return out;
    }
}
