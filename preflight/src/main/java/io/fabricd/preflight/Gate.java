package io.fabricd.preflight;

import io.fabricd.model.topology.Topology;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The job gate's decision: which nodes of a set and which links between them a job may use. A node
 * is excluded for its findings (the policy's severities and checks) or for a host slow to answer
 * ({@link HostJudge}), unknown when its agent did not answer well or when links of its were measured
 * but none enough to judge, excluded when it is in bad links with two or more partners that are
 * otherwise good ({@link Localiser}). A node none of
 * whose links was measured or tried is judged on its agent's answer alone: evidence about other
 * nodes says nothing of it. A link is bad for its loss or latency against the set's medians, or its
 * bandwidth against its ceiling (or a bandwidth test that failed once the peer accepted it), or for its loss or latency above
 * the policy's absolute bounds.
 */
public final class Gate {
    private Gate() {
    }

    /** {@link #decide(List, List, Policy, Topology)} without a topology: no fabric view, every bad link its ends' or its own. */
    public static Verdicts decide(List<NodeInput> nodes, List<LinkInput> links, Policy policy) {
        return decide(nodes, links, policy, Topology.EMPTY);
    }

    /**
     * @param nodes    the set, in its order (a name given twice counts once)
     * @param links    the measurements; those of pairs outside the set are left out
     * @param topology where the nodes sit ({@link Topology#EMPTY}: unknown); pairs without a known path are judged as without it
     */
    public static Verdicts decide(List<NodeInput> nodes, List<LinkInput> links, Policy policy, Topology topology) {
        Map<String, Integer> order = new HashMap<>();
        Map<String, NodeJudge.Call> pre = new LinkedHashMap<>();
        Map<String, NodeInput.State> states = new HashMap<>();
        for (NodeInput n : nodes) {
            if (!pre.containsKey(n.node())) {
                order.put(n.node(), order.size());
                pre.put(n.node(), NodeJudge.judge(n, policy));
                states.put(n.node(), n.state());
            }
        }
        // a slow host is excluded before any link is blamed: its links are its own, not its partners'
        Map<String, List<HostHold>> holds = HostJudge.judge(order, links, policy);
        pre.replaceAll((n, c) -> HostJudge.onto(n, c, holds.get(n)));
        List<LinkStats> stats = LinkStats.collect(order, links);
        List<LinkJudge.Call> calls = LinkJudge.judge(policy, stats);
        FabricBlame fabric = FabricBlame.of(calls, states, topology, policy);
        Map<String, Verdict> preVerdicts = new HashMap<>();
        pre.forEach((n, c) -> preVerdicts.put(n, fabric.behind(n) != null ? Verdict.EXCLUDE : c.verdict()));
        // a bad link a switch or an uplink explains is that part's: it implicates neither end
        Localiser.Result loc = Localiser.run(order, preVerdicts, calls.stream().filter(c -> fabric.of(c.stats().pair()) == null).toList());

        Map<String, Tally> counts = new HashMap<>();
        for (LinkJudge.Call c : calls) {
            for (String end : List.of(c.stats().a, c.stats().b)) {
                Tally k = counts.computeIfAbsent(end, x -> new Tally());
                if (c.verdict() != Verdict.UNKNOWN) {
                    k.judged++;
                    k.passed += c.verdict() == Verdict.PASS ? 1 : 0;
                }
            }
        }
        List<NodeVerdict> verdicts = new ArrayList<>();
        List<String> excluded = new ArrayList<>();
        Map<String, Verdict> finals = new HashMap<>();
        pre.forEach((node, call) -> {
            Tally k = counts.get(node);
            NodeVerdict v = node(node, call, k == null ? new Tally() : k, k != null, loc, fabric, policy);
            verdicts.add(v);
            finals.put(node, v.verdict());
            if (v.verdict() == Verdict.EXCLUDE || v.verdict() == Verdict.UNKNOWN && !policy.unknownPasses()) {
                excluded.add(node);
            }
        });
        List<LinkVerdict> linkVerdicts = calls.stream().map(c -> link(c, loc.blame().get(c.stats().pair()), fabric.of(c.stats().pair()),
                finals, policy)).toList();
        return new Verdicts(verdicts, linkVerdicts, excluded, loc.suspects(), fabric.fabric());
    }

    /** A node's links: how many were judged, how many of them passed. */
    private static final class Tally {
        int judged;
        int passed;
    }

    /**
     * @param measured whether a link of this node was measured or tried (a pair planned that gave nothing counts)
     * @param fabric   the suspect leaf the node is excluded behind, or the one its own path is tied with
     */
    private static NodeVerdict node(String node, NodeJudge.Call call, Tally counts, boolean measured, Localiser.Result loc, FabricBlame fabric,
                                    Policy policy) {
        FabricSuspect leaf = fabric.behind(node);
        List<String> reasons = new ArrayList<>(call.reasons());
        List<String> partners = null;
        Verdict verdict = call.verdict();
        if (verdict == Verdict.PASS && leaf != null) {
            verdict = Verdict.EXCLUDE;
            // what to do before the pairs: a drain reason keeps the first 200 characters
            reasons.add(node + ": behind " + leaf.name() + ", which the set's bad links share (" + FabricBlame.share(leaf) + "): check that"
                    + " switch (its ports' error counters and logs, its uplinks), then rerun; --on-suspect-switch keep uses the node anyway;"
                    + " the pairs: " + Texts.names(leaf.badPairNames()));
        } else if (verdict == Verdict.PASS && loc.excluded().containsKey(node)) {
            partners = loc.excluded().get(node);
            verdict = Verdict.EXCLUDE;
            reasons.add(node + ": bad links with " + partners.size() + " nodes that are otherwise good (" + Texts.names(partners)
                    + "): check " + ownPath(node, fabric.withLeaf(node)) + ", then rerun");
        } else if (verdict == Verdict.PASS && loc.undecided().containsKey(node)) {
            partners = loc.undecided().get(node);
            verdict = Verdict.UNKNOWN;
            reasons.add(node + ": bad link with " + Texts.names(partners) + " and no other link that passed on what that one failed (probes,"
                    + " bandwidth): could not tell which end is bad; rerun to pair it with others");
        } else if (verdict == Verdict.PASS && measured && counts.judged == 0) {
            verdict = Verdict.UNKNOWN;
            reasons.add(node + ": no link measured enough to judge (fewer than " + policy.minSamples()
                    + " probes, no bandwidth test): check its probe responder and UDP port, then rerun");
        }
        return new NodeVerdict(node, verdict, reasons, call.evidence().withLinks(counts.judged, counts.passed, partners));
    }

    /**
     * What to check for a node's bad links: its NIC, cable and switch port; or, when the probes cannot
     * tell its path from its leaf's (the only one or two nodes of the leaf in the set), those and the leaf.
     */
    private static String ownPath(String node, FabricSuspect tie) {
        if (tie == null || tie.leaves().isEmpty()) {
            return "its NIC, cable and switch port";
        }
        String leaf = tie.leaves().get(0);
        List<String> others = tie.nodes().stream().filter(n -> !n.equals(node)).toList();
        return others.isEmpty() ? "its NIC, its cable or its leaf (the only node of " + leaf + " in the set)"
                : "its NIC and cable and those of " + String.join(", ", others) + ", or their leaf (the only two nodes of " + leaf + " in the set)";
    }

    /** @param part the suspect above the cables that explains this bad link, or null */
    private static LinkVerdict link(LinkJudge.Call c, String nodeBlame, FabricSuspect part, Map<String, Verdict> nodes, Policy policy) {
        LinkStats l = c.stats();
        String blame = c.bad() && part != null ? LinkVerdict.BLAME_FABRIC : nodeBlame;
        List<String> reasons = new ArrayList<>();
        if (c.verdict() == Verdict.UNKNOWN) {
            reasons.add(LinkJudge.tooFew(policy, l));
        }
        if (c.bad()) {
            for (LinkJudge.Problem p : c.problems()) {
                String then = switch (blame) {
                    case LinkVerdict.BLAME_LINK -> p.advice();
                    case LinkVerdict.BLAME_FABRIC -> "explained by " + part.name() + " (" + FabricBlame.evidence(part) + ")";
                    case LinkVerdict.BLAME_UNKNOWN -> "could not tell whether " + l.a + ", " + l.b + " or the link is bad; rerun to re-pair them";
                    default -> "explained by " + blame + " (" + nodes.get(blame).id() + ")";
                };
                reasons.add(Texts.link(l.a, l.b) + ": " + p.what() + ": " + then);
            }
        }
        return new LinkVerdict(l.a, l.b, c.verdict(), reasons, c.bad() ? c.evidence().withBlame(blame) : c.evidence());
    }
}
