package io.fabricd.preflight;

import java.util.List;

/** What the gate's tests build their sets from and look their verdicts up with. */
final class GateFixtures {
    private GateFixtures() {
    }

    /** Every node reachable, without findings. */
    static List<NodeInput> reachable(List<String> names) {
        return names.stream().map(n -> NodeInput.reachable(n, List.of())).toList();
    }

    static NodeVerdict node(Verdicts v, String name) {
        return v.nodes().stream().filter(n -> n.node().equals(name)).findFirst().orElseThrow();
    }

    /** The link between {@code a} and {@code b}, in either order. */
    static LinkVerdict link(Verdicts v, String a, String b) {
        return v.links().stream().filter(l -> new Pair(l.a(), l.b()).sameNodes(new Pair(a, b))).findFirst().orElseThrow();
    }
}
