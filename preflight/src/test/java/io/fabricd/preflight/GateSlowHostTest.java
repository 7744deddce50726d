package io.fabricd.preflight;

import static io.fabricd.preflight.GateFixtures.link;
import static io.fabricd.preflight.GateFixtures.node;
import static io.fabricd.preflight.GateFixtures.reachable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A host slow to answer is a bad node: how long each node's responder held the probes it answered,
 * against the set's median with a floor, excludes the node with a reason of its own and leaves its
 * partners and its links clear; fast hosts a few microseconds apart, and a set slow throughout, are
 * not told apart.
 */
class GateSlowHostTest {
    private static final double US = 1e-6;
    private static final double MS = 1e-3;
    private static final Policy DEFAULTS = Policy.defaults();

    /**
     * A ring round over {@code names}: 100 probes each way, {@code lost} lost on the links of
     * {@code lossy} (none when null), 30 µs round trips, each answer held as long as its responder's
     * entry in {@code hold} says.
     */
    private static List<LinkInput> ring(List<String> names, Map<String, Double> hold, String lossy, long lost) {
        List<LinkInput> out = new ArrayList<>();
        for (Pair p : RingPlan.ring(names)) {
            long l = p.a().equals(lossy) || p.b().equals(lossy) ? lost : 0;
            out.add(LinkInput.probes(p.a(), p.b(), "udp", 100, l, 30 * US, hold.get(p.b())));
            out.add(LinkInput.probes(p.b(), p.a(), "udp", 100, l, 30 * US, hold.get(p.a())));
        }
        return out;
    }

    /** Every node of {@code names} holding 20 to 60 µs (seeded), as idle and busy fast hosts do. */
    private static Map<String, Double> fast(List<String> names, long seed) {
        Random r = new Random(seed);
        Map<String, Double> hold = new HashMap<>();
        for (String n : names) {
            hold.put(n, (20 + r.nextDouble() * 40) * US);
        }
        return hold;
    }

    @Test
    void aSlowHostIsExcludedForItselfAndItsPartnersAndLinksPass() {
        List<String> names = Hostlist.parse("gpu[001-008]");
        Map<String, Double> hold = fast(names, 1);
        hold.put("gpu005", 24 * MS);
        Verdicts v = Gate.decide(reachable(names), ring(names, hold, null, 0), DEFAULTS);

        NodeVerdict slow = node(v, "gpu005");
        assertThat(slow.verdict()).isEqualTo(Verdict.EXCLUDE);
        assertThat(slow.reasons()).hasSize(1);
        assertThat(slow.reasons().get(0)).startsWith("gpu005: slow host: it held the probes it answered 24.0 ms (median of 200 udp "
                + "probes; set median ").contains(", limit 1000 µs): a starved CPU or stalls slow every collective it joins; check its "
                + "load").endsWith(", then rerun").doesNotContain("link").doesNotContain("NIC");
        HostHold h = hostOf(slow).get(0);
        assertThat(h.transport()).isEqualTo("udp");
        assertThat(h.holdP50Seconds()).isCloseTo(24 * MS, within(1e-12));
        assertThat(h.probes()).isEqualTo(200);
        assertThat(h.limitSeconds()).isEqualTo(1 * MS);
        assertThat(h.slow()).isTrue();
        assertThat(slow.evidence()).doesNotContainKey(Evidence.BAD_PARTNERS);

        assertThat(v.excluded()).containsExactly("gpu005");
        for (String partner : List.of("gpu004", "gpu006")) {
            assertThat(node(v, partner).verdict()).as(partner).isEqualTo(Verdict.PASS);
            assertThat(hostOf(node(v, partner))).singleElement().satisfies(x -> assertThat(x.slow()).isFalse());
        }
        assertThat(v.links()).allMatch(l -> l.verdict() == Verdict.PASS);
        // its evidence is its own: not a node to re-pair, and its partners are known good
        assertThat(v.suspectNodes()).isEmpty();
        assertThat(v.knownGood()).contains("gpu004", "gpu006").doesNotContain("gpu005");
    }

    @Test
    void theBadLinksOfASlowHostAreHeldAgainstItNotItsPartners() {
        // a host stalled so long that some answers come too late for the probes' timeout: lost on both its links
        List<String> names = Hostlist.parse("n[1-6]");
        Map<String, Double> hold = fast(names, 2);
        hold.put("n3", 40 * MS);
        Verdicts v = Gate.decide(reachable(names), ring(names, hold, "n3", 15), DEFAULTS);
        assertThat(v.excluded()).containsExactly("n3");
        assertThat(node(v, "n3").reasons()).singleElement().asString().startsWith("n3: slow host: ");
        assertThat(node(v, "n3").evidence()).doesNotContainKey(Evidence.BAD_PARTNERS);
        for (String partner : List.of("n2", "n4")) {
            assertThat(node(v, partner).verdict()).as(partner).isEqualTo(Verdict.PASS);
            LinkVerdict l = link(v, partner, "n3");
            assertThat(l.verdict()).isEqualTo(Verdict.EXCLUDE);
            assertThat(l.blame()).isEqualTo("n3");
            assertThat(l.reasons()).singleElement().asString().endsWith("explained by n3 (exclude)");
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void fastHostsAFewMicrosecondsApartAreNotToldApart(long seed) {
        List<String> names = Hostlist.parse("gpu[01-16]");
        Map<String, Double> hold = fast(names, seed);
        // one busier than the others: five times the set's hold, still a fraction of the floor
        hold.put("gpu09", 250 * US);
        Verdicts v = Gate.decide(reachable(names), ring(names, hold, null, 0), DEFAULTS);
        assertThat(v.excluded()).isEmpty();
        assertThat(v.allPass()).isTrue();
        assertThat(hostOf(node(v, "gpu09"))).singleElement().satisfies(x -> {
            assertThat(x.holdP50Seconds()).isGreaterThan(3 * x.medianHoldP50Seconds());
            assertThat(x.slow()).isFalse();
        });
    }

    @Test
    void aSetSlowThroughoutIsJudgedAgainstItselfAboveTheFloor() {
        List<String> names = Hostlist.parse("n[01-10]");
        Map<String, Double> hold = new HashMap<>();
        Random r = new Random(3);
        for (String n : names) {
            hold.put(n, (15 + r.nextDouble() * 10) * MS); // every host held up: none stands out
        }
        Verdicts all = Gate.decide(reachable(names), ring(names, hold, null, 0), DEFAULTS);
        assertThat(all.excluded()).isEmpty();
        assertThat(hostOf(node(all, "n01")).get(0).limitSeconds()).as("3 x the set's median, above the floor").isGreaterThan(45 * MS);

        hold.put("n07", 90 * MS); // and one far slower than the rest
        Verdicts one = Gate.decide(reachable(names), ring(names, hold, null, 0), DEFAULTS);
        assertThat(one.excluded()).containsExactly("n07");
    }

    @Test
    void ofTwoNodesTheSlowOneIsJudgedAgainstTheFastOne() {
        List<String> names = List.of("a", "b");
        Map<String, Double> hold = Map.of("a", 35 * US, "b", 12 * MS);
        List<LinkInput> links = List.of(LinkInput.probes("a", "b", "udp", 50, 0, 30 * US, hold.get("b")),
                LinkInput.probes("b", "a", "udp", 50, 0, 30 * US, hold.get("a")));
        Verdicts v = Gate.decide(reachable(names), links, DEFAULTS);
        assertThat(v.excluded()).containsExactly("b");
        assertThat(node(v, "a").verdict()).isEqualTo(Verdict.PASS);
    }

    @Test
    void theFloorIsThePolicys() {
        List<String> names = Hostlist.parse("n[1-8]");
        Map<String, Double> hold = fast(names, 4);
        hold.put("n2", 3 * MS);
        assertThat(Gate.decide(reachable(names), ring(names, hold, null, 0), DEFAULTS).excluded()).containsExactly("n2");
        Policy lenient = new Policy(null, null, null, 3, 3, 5 * MS, 0.8, 20, false, 1);
        assertThat(Gate.decide(reachable(names), ring(names, hold, null, 0), lenient).excluded()).isEmpty();
    }

    @Test
    void tooFewProbesAnsweredOrNoHoldSaidIsNoEvidence() {
        List<String> names = Hostlist.parse("n[1-6]");
        Map<String, Double> hold = fast(names, 5);
        hold.put("n4", 50 * MS);
        // 8 probes each way: 16 answered of n4, fewer than the 20 a judgement needs
        List<LinkInput> few = new ArrayList<>();
        for (LinkInput l : ring(names, hold, null, 0)) {
            few.add(LinkInput.probes(l.a(), l.b(), "udp", l.b().equals("n4") ? 8 : 100, 0, 30 * US, l.holdP50Seconds()));
        }
        Verdicts v = Gate.decide(reachable(names), few, DEFAULTS);
        assertThat(node(v, "n4").verdict()).isEqualTo(Verdict.PASS);
        assertThat(node(v, "n4").evidence()).doesNotContainKey(Evidence.HOST);

        // agents of an older release say no hold: nothing is judged, nothing claimed
        List<LinkInput> silent = ring(names, hold, null, 0).stream()
                .map(l -> LinkInput.probes(l.a(), l.b(), l.transport(), l.sent(), l.lost(), l.p50Seconds())).toList();
        Verdicts old = Gate.decide(reachable(names), silent, DEFAULTS);
        assertThat(old.allPass()).isTrue();
        assertThat(old.nodes()).allSatisfy(n -> assertThat(n.evidence()).doesNotContainKey(Evidence.HOST));
    }

    @Test
    void anUnansweredNodeStaysUnknownAndAFindingKeepsItsReasonFirst() {
        List<String> names = Hostlist.parse("n[1-6]");
        Map<String, Double> hold = fast(names, 6);
        hold.put("n2", 30 * MS);
        hold.put("n5", 30 * MS);
        List<NodeInput> nodes = new ArrayList<>(reachable(names));
        nodes.set(1, NodeInput.unreachable("n2", "connect timed out"));
        nodes.set(4, NodeInput.reachable("n5", List.of(new FindingInput("pfc_missing", io.fabricd.model.finding.Severity.CRITICAL,
                "no PFC", "enable PFC", Map.of()))));
        Verdicts v = Gate.decide(nodes, ring(names, hold, null, 0), DEFAULTS);
        assertThat(node(v, "n2").verdict()).isEqualTo(Verdict.UNKNOWN);
        assertThat(node(v, "n2").reasons()).singleElement().asString().contains("agent unreachable");
        assertThat(node(v, "n5").verdict()).isEqualTo(Verdict.EXCLUDE);
        assertThat(node(v, "n5").reasons()).hasSize(2);
        assertThat(node(v, "n5").reasons().get(0)).contains("pfc_missing");
        assertThat(node(v, "n5").reasons().get(1)).startsWith("n5: slow host: ");
    }

    @Test
    void holdsAreComparedWithinTheirTransport() {
        // a verbs responder's hold is its processing alone; a UDP one's includes its wake-up: never compared
        List<String> names = Hostlist.parse("n[1-6]");
        List<LinkInput> links = new ArrayList<>();
        for (Pair p : RingPlan.ring(names)) {
            for (String[] d : new String[][] {{p.a(), p.b()}, {p.b(), p.a()}}) {
                links.add(LinkInput.probes(d[0], d[1], "udp", 100, 0, 30 * US, 400 * US));
                links.add(LinkInput.probes(d[0], d[1], "rdma", 100, 0, 8 * US, 2 * US));
            }
        }
        Verdicts v = Gate.decide(reachable(names), links, DEFAULTS);
        assertThat(v.allPass()).isTrue();
        assertThat(hostOf(node(v, "n1"))).extracting(HostHold::transport).containsExactly("rdma", "udp");
    }

    @SuppressWarnings("unchecked")
    private static List<HostHold> hostOf(NodeVerdict n) {
        return (List<HostHold>) n.evidence().get(Evidence.HOST);
    }
}
