package io.fabricd.preflight;

import io.fabricd.model.topology.Element;
import io.fabricd.model.topology.Placement;
import io.fabricd.model.topology.Topology;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;

/**
 * Where in the fabric a set's bad pairs meet (boolean network tomography): each judged pair crosses
 * the elements its path has in the topology ({@link Topology#path}: both ends' NICs and cables, the
 * switches and the uplinks between them), and the fewest elements that explain the bad pairs are
 * named, while good pairs clear the elements they cross.
 *
 * <p>Good pairs clear with a tolerance for noise: an element is a candidate only while its bad pairs
 * not yet explained are at least {@link #MIN_BAD_PAIRS} and more than twice its good pairs (more than
 * two thirds of the pairs that cross it are bad); an element of whose pairs a third or more are good
 * is innocent, whatever a few bad ones say (a faulty part hurts nearly every pair through it; a
 * healthy one is crossed by the bad pairs of faults elsewhere, a minority). Elements with the same
 * evidence (the same bad pairs and as many good ones: a NIC and its cable, a leaf and the one node
 * under it) are one candidate, named together as "one of these", never one guessed. Greedily, the
 * candidate whose bad pairs not yet explained outnumber its good pairs by the most is named (then the
 * one that explains more, the larger share of bad pairs, the fewer elements, the first id), its bad
 * pairs are explained and count for no other, until no candidate is left; last, a named one whose bad
 * pairs all the others explain is dropped. A leaf named with one or two of the set's nodes under it
 * is named with their NICs and cables ({@link #withFewNodes}). A pair whose path is unknown (an end not placed) is left
 * to the per-node {@link Localiser}, as are bad pairs no candidate explains.
 */
public final class FabricLocaliser {
    /** The fewest bad pairs that name an element: one bad pair is the pair's own until another agrees. */
    public static final int MIN_BAD_PAIRS = 2;
    /** The most of the set's nodes under a leaf for which the leaf and their own paths are named together. */
    public static final int FEW_NODES = 2;

    /** What a pair's measurements came to. */
    public enum Outcome { BAD, GOOD, UNMEASURED }

    /** One pair and what it came to. */
    public record Measured(Pair pair, Outcome outcome) {
    }

    /** Elements with the same evidence: the bad pairs crossing them (by index) and how many good ones. */
    private static final class Candidate {
        final List<Element> elements = new ArrayList<>();
        final BitSet bad;
        final int good;
        /** Its bad pairs not explained yet, as last counted. */
        int left;

        Candidate(BitSet bad, int good) {
            this.bad = bad;
            this.good = good;
        }
    }

    /** An element's evidence while it is gathered. */
    private static final class Tally {
        final BitSet bad = new BitSet();
        int good;
    }

    /** The same evidence, as a key. */
    private record Evidence(BitSet bad, int good) {
    }

    private FabricLocaliser() {
    }

    public static Fabric locate(List<Measured> measured, Topology topology) {
        List<Pair> badPairs = new ArrayList<>();
        Map<Element, Tally> tallies = new LinkedHashMap<>();
        int placed = 0;
        int unplaced = 0;
        for (Measured m : measured) {
            if (m.outcome() == Outcome.UNMEASURED) {
                continue;
            }
            Optional<List<Element>> path = topology.path(m.pair().a(), m.pair().b());
            if (path.isEmpty()) {
                unplaced++;
                continue;
            }
            placed++;
            int index = m.outcome() == Outcome.BAD ? badPairs.size() : -1;
            if (index >= 0) {
                badPairs.add(m.pair());
            }
            for (Element e : path.get()) {
                Tally t = tallies.computeIfAbsent(e, k -> new Tally());
                if (index >= 0) {
                    t.bad.set(index);
                } else {
                    t.good++;
                }
            }
        }
        Map<Evidence, Candidate> byEvidence = new HashMap<>();
        tallies.forEach((e, t) -> {
            if (suspect(t.bad.cardinality(), t.good)) {
                byEvidence.computeIfAbsent(new Evidence(t.bad, t.good), k -> new Candidate(t.bad, t.good)).elements.add(e);
            }
        });
        List<Candidate> open = new ArrayList<>(byEvidence.values());
        open.forEach(c -> c.elements.sort(Comparator.naturalOrder()));
        List<Candidate> named = pick(open);
        prune(named, badPairs.size());
        named.forEach(c -> withFewNodes(c, tallies, topology));
        List<FabricSuspect> out = new ArrayList<>();
        BitSet explained = new BitSet();
        for (Candidate c : named) {
            BitSet mine = (BitSet) c.bad.clone();
            mine.andNot(explained);
            explained.or(c.bad);
            List<Pair> led = mine.stream().mapToObj(badPairs::get).toList();
            out.add(new FabricSuspect(c.elements, led, c.bad.cardinality() + c.good, c.bad.cardinality()));
        }
        return new Fabric(placed, unplaced, out);
    }

    /**
     * The greedy cover: the strongest candidate first, its bad pairs then explained for the others.
     * Lazily: a candidate's bad pairs left only go down, so its strength when last counted bounds it;
     * the strongest by that count is counted again, and named when it still leads (a large set with
     * thousands of candidates is not counted over for each one named).
     */
    private static List<Candidate> pick(List<Candidate> open) {
        BitSet explained = new BitSet();
        BitSet scratch = new BitSet();
        PriorityQueue<Candidate> queue = new PriorityQueue<>((x, y) -> stronger(x, y) ? -1 : stronger(y, x) ? 1 : 0);
        open.forEach(c -> c.left = c.bad.cardinality());
        queue.addAll(open);
        List<Candidate> named = new ArrayList<>();
        while (!queue.isEmpty()) {
            Candidate top = queue.poll();
            scratch.clear();
            scratch.or(top.bad);
            scratch.andNot(explained);
            int left = scratch.cardinality();
            if (left != top.left) {
                top.left = left;
                if (suspect(left, top.good)) {
                    queue.add(top);
                }
                continue;
            }
            if (suspect(left, top.good)) {
                explained.or(top.bad);
                named.add(top);
            }
        }
        return named;
    }

    /**
     * A leaf named with at most {@link #FEW_NODES} of the set's nodes under it is named with their NICs
     * and cables too, when each of those would be a suspect on its own: the probes cannot tell the leaf
     * from its nodes' own paths (with one node the evidence is the same; with two, both nodes' NICs bad
     * hurt the very pairs the leaf does), and the leaf alone would send an engineer to the switch and
     * let its nodes be kept.
     */
    private static void withFewNodes(Candidate c, Map<Element, Tally> tallies, Topology topology) {
        List<String> leaves = c.elements.stream().filter(e -> e instanceof Element.Switch s && s.tier() == 0)
                .map(e -> ((Element.Switch) e).name()).toList();
        if (leaves.size() != 1 || c.elements.stream().anyMatch(e -> e instanceof Element.Nic)) {
            return;
        }
        List<Element> own = new ArrayList<>();
        for (Map.Entry<Element, Tally> t : tallies.entrySet()) {
            if (t.getKey() instanceof Element.Nic n && topology.placement(n.node()).map(Placement::leaf).orElse("").equals(leaves.get(0))) {
                if (!suspect(t.getValue().bad.cardinality(), t.getValue().good) || own.size() == 2 * FEW_NODES) {
                    return;
                }
                own.add(n);
                own.add(new Element.Cable(n.node(), leaves.get(0)));
            }
        }
        c.elements.addAll(own);
        c.elements.sort(Comparator.naturalOrder());
    }

    /** Enough bad pairs, and more than two thirds of them bad. */
    private static boolean suspect(int bad, int good) {
        return bad >= MIN_BAD_PAIRS && bad > 2 * good;
    }

    /** More bad (left) than good by the most, then more bad, then the larger share bad, then fewer elements, then the first id. */
    private static boolean stronger(Candidate c, Candidate best) {
        int margin = Integer.compare(c.left - c.good, best.left - best.good);
        if (margin != 0) {
            return margin > 0;
        }
        if (c.left != best.left) {
            return c.left > best.left;
        }
        int share = Long.compare((long) c.left * (best.left + best.good), (long) best.left * (c.left + c.good));
        if (share != 0) {
            return share > 0;
        }
        if (c.elements.size() != best.elements.size()) {
            return c.elements.size() < best.elements.size();
        }
        return c.elements.get(0).compareTo(best.elements.get(0)) < 0;
    }

    /**
     * Drops a named candidate whose bad pairs the others named explain, the first named first: each
     * bad pair counts the named candidates that cross it.
     */
    private static void prune(List<Candidate> named, int badPairs) {
        int[] crossing = new int[badPairs];
        named.forEach(c -> c.bad.stream().forEach(i -> crossing[i]++));
        for (int i = 0; i < named.size(); i++) {
            Candidate c = named.get(i);
            if (c.bad.stream().allMatch(p -> crossing[p] > 1)) {
                c.bad.stream().forEach(p -> crossing[p]--);
                named.remove(i--);
            }
        }
    }
}
