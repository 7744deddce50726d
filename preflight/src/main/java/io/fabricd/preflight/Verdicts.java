package io.fabricd.preflight;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The gate's decision on a node set.
 *
 * @param nodes every node of the set, in its order
 * @param links every measured link, both directions together, in the set's order of their ends
 * @param excluded the nodes the job must not use: EXCLUDE, and UNKNOWN unless the policy lets those pass
 * @param suspects bad links whose bad end is not known yet (the ends without a good link are UNKNOWN)
 * @param fabric   the parts of the fabric the bad links share, where a topology placed the nodes
 */
public record Verdicts(List<NodeVerdict> nodes, List<LinkVerdict> links, List<String> excluded, List<Pair> suspects, Fabric fabric) {
    /** The partners a ring gives each node. */
    private static final int RING_PARTNERS = 2;

    public Verdicts {
        nodes = List.copyOf(nodes);
        links = List.copyOf(links);
        excluded = List.copyOf(excluded);
        suspects = List.copyOf(suspects);
    }

    /** How many nodes the job may use (the caller compares it with {@link Policy#minNodes()}). */
    public int kept() {
        return nodes.size() - excluded.size();
    }

    /**
     * No node excluded and no link bad. A link measured too little to judge (UNKNOWN) is not a bad
     * link: what it leaves open is its ends' verdicts.
     */
    public boolean allPass() {
        return excluded.isEmpty() && links.stream().noneMatch(l -> l.verdict() == Verdict.EXCLUDE);
    }

    /** The links found bad (verdict EXCLUDE), whoever is to blame; UNKNOWN ones are not among them. */
    public List<LinkVerdict> excludedLinks() {
        return links.stream().filter(l -> l.verdict() == Verdict.EXCLUDE).toList();
    }

    /** The nodes the gate could not judge (UNKNOWN), in the set's order: among {@link #excluded} unless the policy lets them pass. */
    public List<String> unknown() {
        return nodes.stream().filter(n -> n.verdict() == Verdict.UNKNOWN).map(NodeVerdict::node).toList();
    }

    /** The links held bad in themselves (both ends otherwise good). */
    public List<LinkVerdict> badLinks() {
        return links.stream().filter(LinkVerdict::badLink).toList();
    }

    /**
     * The nodes worth pairing again with known-good ones ({@link RingPlan#repair}): reachable nodes
     * left unknown (a suspect's end without a good link, too few samples), kept nodes none of whose
     * links passed, and nodes excluded for bad links with two partners only (a ring round's
     * evidence: a good node between two bad cables looks the same).
     */
    public List<String> suspectNodes() {
        return nodes.stream().filter(n -> n.evidence().state() == NodeInput.State.REACHABLE).filter(Verdicts::worthRepair)
                .map(NodeVerdict::node).toList();
    }

    private static boolean worthRepair(NodeVerdict n) {
        NodeVerdict.Evidence e = n.evidence();
        return switch (n.verdict()) {
            case UNKNOWN -> true;
            case PASS -> e.linksPassed() == 0;
            case EXCLUDE -> e.findings() == null && e.badPartners() != null && e.badPartners().size() <= RING_PARTNERS;
        };
    }

    /**
     * Nodes that passed with at least one good link and in no bad link not explained by its other end
     * or by a part of the fabric ({@link LinkVerdict#BLAME_FABRIC}: the part is held, not the ends).
     */
    public List<String> knownGood() {
        Set<String> inBadLinks = new HashSet<>();
        for (LinkVerdict l : links) {
            if (l.verdict() == Verdict.EXCLUDE && !l.a().equals(l.blame()) && !l.b().equals(l.blame())
                    && !LinkVerdict.BLAME_FABRIC.equals(l.blame())) {
                inBadLinks.add(l.a());
                inBadLinks.add(l.b());
            }
        }
        return nodes.stream().filter(n -> n.verdict() == Verdict.PASS && !inBadLinks.contains(n.node()))
                .filter(n -> n.evidence().linksPassed() > 0).map(NodeVerdict::node).toList();
    }
}
