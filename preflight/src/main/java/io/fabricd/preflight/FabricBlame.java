package io.fabricd.preflight;

import io.fabricd.model.topology.Placement;
import io.fabricd.model.topology.Topology;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the fabric view ({@link FabricLocaliser}) means for the gate's verdicts: which bad links a
 * switch or an uplink explains (they are that part's, not their ends'), and which nodes sit behind a
 * suspect leaf (excluded unless the policy keeps them). A suspect with a node's NIC and cable among
 * its elements (alone, or tied with the leaf of the only one or two nodes under it in the set)
 * changes nothing: the per-node localisation judges a node's own path as it always has, whatever
 * the policy, and only the reason names the leaf with it.
 */
final class FabricBlame {
    private final Fabric fabric;
    private final Map<Pair, FabricSuspect> byPair;
    private final Map<String, FabricSuspect> behind;
    private final Map<String, FabricSuspect> own;

    private FabricBlame(Fabric fabric, Map<Pair, FabricSuspect> byPair, Map<String, FabricSuspect> behind, Map<String, FabricSuspect> own) {
        this.fabric = fabric;
        this.byPair = byPair;
        this.behind = behind;
        this.own = own;
    }

    /**
     * @param states how each node's agent answered: a pair with an end whose agent did not answer
     *               well says nothing of the fabric (probes to a node that is down are all lost)
     */
    static FabricBlame of(List<LinkJudge.Call> calls, Map<String, NodeInput.State> states, Topology topology, Policy policy) {
        if (topology.isEmpty()) {
            return new FabricBlame(new Fabric(0, 0, List.of()), Map.of(), Map.of(), Map.of());
        }
        List<FabricLocaliser.Measured> measured = new ArrayList<>(calls.size());
        for (LinkJudge.Call c : calls) {
            LinkStats l = c.stats();
            boolean answered = states.get(l.a) == NodeInput.State.REACHABLE && states.get(l.b) == NodeInput.State.REACHABLE;
            FabricLocaliser.Outcome o = !answered || c.verdict() == Verdict.UNKNOWN ? FabricLocaliser.Outcome.UNMEASURED
                    : c.bad() ? FabricLocaliser.Outcome.BAD : FabricLocaliser.Outcome.GOOD;
            measured.add(new FabricLocaliser.Measured(l.pair(), o));
        }
        Fabric fabric = FabricLocaliser.locate(measured, topology);
        Map<Pair, FabricSuspect> byPair = new HashMap<>();
        Map<String, FabricSuspect> behind = new HashMap<>();
        Map<String, FabricSuspect> own = new HashMap<>();
        for (FabricSuspect s : fabric.suspects()) {
            if (!s.aboveTheCables()) {
                if (!s.leaves().isEmpty()) {
                    s.nodes().forEach(n -> own.putIfAbsent(n, s));
                }
                continue;
            }
            s.badPairs().forEach(p -> byPair.putIfAbsent(p, s));
            if (policy.onSuspectSwitch() == Policy.SuspectSwitch.EXCLUDE && !s.leaves().isEmpty()) {
                for (String node : states.keySet()) {
                    Optional<String> leaf = topology.placement(node).map(Placement::leaf);
                    if (leaf.isPresent() && s.leaves().contains(leaf.get())) {
                        behind.putIfAbsent(node, s);
                    }
                }
            }
        }
        return new FabricBlame(fabric, byPair, behind, own);
    }

    Fabric fabric() {
        return fabric;
    }

    /** The suspect switch or uplink that explains this bad pair, or null. */
    FabricSuspect of(Pair pair) {
        return byPair.get(pair);
    }

    /** The suspect leaf this node is to be excluded behind, or null. */
    FabricSuspect behind(String node) {
        return behind.get(node);
    }

    /** The suspect that ties this node's NIC and cable with its leaf (the only nodes of it in the set), or null. */
    FabricSuspect withLeaf(String node) {
        return own.get(node);
    }

    /** "180 of 190 pairs through it bad". */
    static String share(FabricSuspect s) {
        return s.bad() + " of " + s.pairs() + " pairs through it bad";
    }

    /** "180 of 190 pairs through it bad: gpu001<->gpu002, ... and 175 more". */
    static String evidence(FabricSuspect s) {
        return share(s) + ": " + Texts.names(s.badPairNames());
    }
}
