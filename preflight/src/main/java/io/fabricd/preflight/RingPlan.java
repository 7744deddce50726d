package io.fabricd.preflight;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Which pairs to measure. First a ring over the set (each node tests its next, so each runs one test
 * and serves one); then, for the nodes a round left in doubt, a repair round pairing each with
 * known-good nodes it was not paired with yet, walking the good ones as a shifted ring so that the
 * load spreads over them.
 */
public final class RingPlan {
    /** Known-good partners each suspect gets in a repair round: two agreeing make a verdict. */
    public static final int REPAIR_PARTNERS = 2;

    private RingPlan() {
    }

    /** (i, i+1 mod n) for each node; one pair for two nodes, none for fewer. */
    public static List<Pair> ring(List<String> nodes) {
        int n = nodes.size();
        if (n < 2) {
            return List.of();
        }
        if (n == 2) {
            return List.of(new Pair(nodes.get(0), nodes.get(1)));
        }
        List<Pair> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(new Pair(nodes.get(i), nodes.get((i + 1) % n)));
        }
        return out;
    }

    /** {@link #repair(List, List, Set, int)} with {@link #REPAIR_PARTNERS} partners each. */
    public static List<Pair> repair(List<String> suspects, List<String> good, Set<Pair> alreadyTested) {
        return repair(suspects, good, alreadyTested, REPAIR_PARTNERS);
    }

    /**
     * Each suspect (running the test) with up to {@code partners} of {@code good}, none it was
     * already paired with either way round ({@code alreadyTested}) or in this round. The good nodes
     * are taken in turn from where the previous suspect stopped, so that each serves as few tests as
     * the numbers allow.
     */
    public static List<Pair> repair(List<String> suspects, List<String> good, Set<Pair> alreadyTested, int partners) {
        Set<Pair> tested = new HashSet<>();
        for (Pair p : alreadyTested) {
            tested.add(p.unordered());
        }
        Set<String> suspectSet = new HashSet<>(suspects);
        List<String> pool = good.stream().filter(g -> !suspectSet.contains(g)).distinct().toList();
        List<Pair> out = new ArrayList<>();
        if (pool.isEmpty()) {
            return out;
        }
        int cursor = 0;
        for (String s : new LinkedHashSet<>(suspects)) {
            int got = 0;
            for (int tried = 0; tried < pool.size() && got < partners; tried++) {
                String g = pool.get(cursor);
                cursor = (cursor + 1) % pool.size();
                if (tested.add(new Pair(s, g).unordered())) {
                    out.add(new Pair(s, g));
                    got++;
                }
            }
        }
        return out;
    }
}
