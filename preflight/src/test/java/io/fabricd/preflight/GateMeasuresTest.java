package io.fabricd.preflight;

import static io.fabricd.preflight.GateFixtures.link;
import static io.fabricd.preflight.GateFixtures.node;
import static io.fabricd.preflight.GateFixtures.reachable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What each kind of measurement may and may not tell: a repair round's probes do not clear bandwidth
 * evidence, a bandwidth test that failed once accepted is a bad link while one that never started is
 * no evidence, round trips are compared within their transport, a node is judged on its own links
 * only, and a link measured too little is not a bad link.
 */
class GateMeasuresTest {
    private static final double US = 1e-6;
    private static final Policy DEFAULTS = Policy.defaults();

    private static List<LinkInput> probes(String a, String b, long sent, long lost) {
        return List.of(LinkInput.probes(a, b, "udp", sent, lost, 30 * US), LinkInput.probes(b, a, "udp", sent, lost, 30 * US));
    }

    private static List<LinkInput> bandwidth(String a, String b, double ratio) {
        return List.of(LinkInput.bandwidth(a, b, ratio, null), LinkInput.bandwidth(b, a, ratio, null));
    }

    /** The ring round: probes and a bandwidth test each way; {@code slow} writes at 50 % of its ceiling. */
    private static List<LinkInput> ringRound(List<String> names, String slow) {
        List<LinkInput> out = new ArrayList<>();
        for (Pair p : RingPlan.ring(names)) {
            out.addAll(probes(p.a(), p.b(), 100, 0));
            out.addAll(bandwidth(p.a(), p.b(), p.a().equals(slow) || p.b().equals(slow) ? 0.5 : 0.93));
        }
        return out;
    }

    @Test
    void aRepairRoundOfProbesDoesNotClearANodeSlowOnBandwidth() {
        List<String> names = Hostlist.parse("n[01-12]");
        List<LinkInput> links = new ArrayList<>(ringRound(names, "n05"));
        Verdicts ring = Gate.decide(reachable(names), links, DEFAULTS);
        assertThat(ring.excluded()).containsExactly("n05");
        assertThat(ring.suspectNodes()).containsExactly("n05");

        // the repair round probes: both partners answer every probe in time, which says nothing of n05's bandwidth
        List<Pair> repair = RingPlan.repair(ring.suspectNodes(), ring.knownGood(), new HashSet<>(RingPlan.ring(names)));
        assertThat(repair).hasSize(2);
        for (Pair p : repair) {
            links.addAll(probes(p.a(), p.b(), 100, 0));
        }
        Verdicts repaired = Gate.decide(reachable(names), links, DEFAULTS);
        assertThat(node(repaired, "n05").verdict()).isEqualTo(Verdict.EXCLUDE);
        assertThat(node(repaired, "n05").evidence().badPartners()).containsExactly("n04", "n06");
        assertThat(repaired.excluded()).containsExactly("n05");
        assertThat(repaired.badLinks()).isEmpty();

        // a repair bandwidth test that passes does clear it: then the two cables are the bad ones
        for (Pair p : repair) {
            links.addAll(bandwidth(p.a(), p.b(), 0.93));
        }
        Verdicts measured = Gate.decide(reachable(names), links, DEFAULTS);
        assertThat(measured.excluded()).isEmpty();
        assertThat(measured.badLinks()).extracting(l -> l.a() + "-" + l.b()).containsExactly("n04-n05", "n05-n06");
    }

    @Test
    void aBandwidthEndWithProbePassesOnlyIsUnknownNotCleared() {
        List<String> names = Hostlist.parse("n[1-8]");
        List<NodeInput> nodes = new ArrayList<>(reachable(names));
        nodes.add(NodeInput.reachable("s", List.of()));
        List<LinkInput> links = new ArrayList<>(ringRound(names, null));
        links.addAll(probes("s", "n3", 100, 0));
        links.addAll(bandwidth("s", "n3", 0.4));
        links.addAll(probes("s", "n6", 100, 0)); // a probes-only pass: no word on s's bandwidth
        Verdicts v = Gate.decide(nodes, links, DEFAULTS);
        assertThat(link(v, "s", "n3").blame()).isEqualTo(LinkVerdict.BLAME_UNKNOWN);
        assertThat(node(v, "s").verdict()).isEqualTo(Verdict.UNKNOWN);
        assertThat(v.excluded()).containsExactly("s");
    }

    @Test
    void aBandwidthTestThatFailedOnceAcceptedIsABadLinkOneNeverStartedIsNoEvidence() {
        List<String> names = Hostlist.parse("n[1-8]");
        List<LinkInput> links = new ArrayList<>();
        for (Pair p : RingPlan.ring(names)) {
            links.addAll(probes(p.a(), p.b(), 100, 0));
            if (p.a().equals("n2")) {
                links.add(LinkInput.bandwidthFailed("n2", "n3", "the queue pairs did not connect: timed out"));
                links.add(LinkInput.bandwidth("n3", "n2", 0.92, null));
            } else if (p.a().equals("n5")) {
                links.add(LinkInput.bandwidth("n5", "n6", null, "not measured: 10.0.0.6:9530 answered 429: busy"));
                links.add(LinkInput.bandwidth("n6", "n5", null, "not measured: no verbs on n6"));
            } else {
                links.addAll(bandwidth(p.a(), p.b(), 0.93));
            }
        }
        Verdicts v = Gate.decide(reachable(names), links, DEFAULTS);
        LinkVerdict failed = link(v, "n2", "n3");
        assertThat(failed.badLink()).isTrue();
        assertThat(failed.reasons()).containsExactly("link n2<->n3: bandwidth test failed after the peer accepted it (the queue pairs did not"
                + " connect: timed out): check both ends' RDMA ports (state, GIDs, MTU) and the path between them");
        assertThat(failed.evidence().bandwidthRatio()).isEqualTo(0.0);
        assertThat(failed.evidence().bandwidthWhy()).isEqualTo("the queue pairs did not connect: timed out");
        LinkVerdict notMeasured = link(v, "n5", "n6");
        assertThat(notMeasured.verdict()).isEqualTo(Verdict.PASS); // on its probes; nothing held against it
        assertThat(notMeasured.evidence().bandwidthRatio()).isNull();
        assertThat(notMeasured.evidence().bandwidthWhy()).isEqualTo("not measured: 10.0.0.6:9530 answered 429: busy");
        assertThat(v.excluded()).isEmpty();
    }

    @Test
    void roundTripsAreComparedWithinTheirTransport() {
        // five links probed over RDMA (10 µs), four over UDP (100 µs): each transport's own median
        List<String> names = Hostlist.parse("n[1-9]");
        List<LinkInput> links = new ArrayList<>();
        int i = 0;
        for (Pair p : RingPlan.ring(names)) {
            boolean rdma = i++ < 5;
            String t = rdma ? "rdma" : "udp";
            double p50 = (rdma ? 10 : 100) * US;
            links.add(LinkInput.probes(p.a(), p.b(), t, 100, 0, p50));
            links.add(LinkInput.probes(p.b(), p.a(), t, 100, 0, p50));
        }
        Verdicts v = Gate.decide(reachable(names), links, DEFAULTS);
        assertThat(v.links()).allSatisfy(l -> assertThat(l.verdict()).as(l.toString()).isEqualTo(Verdict.PASS));
        assertThat(v.allPass()).isTrue();

        // a UDP link at 400 µs is slow against UDP's 100 µs, and says over which transport
        links.add(LinkInput.probes("n1", "n5", "udp", 100, 0, 400 * US));
        links.add(LinkInput.probes("n5", "n1", "udp", 100, 0, 400 * US));
        Verdicts slow = Gate.decide(reachable(names), links, DEFAULTS);
        assertThat(link(slow, "n1", "n5").reasons()).singleElement().asString().startsWith("link n1<->n5: udp p50 400 µs (set median 100 µs)");
        assertThat(link(slow, "n1", "n5").evidence().p50Seconds()).isCloseTo(400 * US, within(1e-9));
        assertThat(link(slow, "n1", "n5").evidence().medianP50Seconds()).isCloseTo(100 * US, within(1e-9));
    }

    @Test
    void aLinkProbedOverTwoTransportsShowsEachOnesRoundTrip() {
        List<String> names = Hostlist.parse("n[1-4]");
        List<LinkInput> links = new ArrayList<>();
        for (Pair p : RingPlan.ring(names)) {
            links.add(LinkInput.probes(p.a(), p.b(), "udp", 100, 0, 40 * US));
            links.add(LinkInput.probes(p.a(), p.b(), "rdma", 50, 0, 8 * US));
        }
        Verdicts v = Gate.decide(reachable(names), links, DEFAULTS);
        assertThat(v.allPass()).isTrue();
        Map<String, LinkVerdict.RoundTrip> each = link(v, "n1", "n2").evidence().p50ByTransport();
        assertThat(each.keySet()).containsExactly("rdma", "udp");
        assertThat(each.get("rdma").p50Seconds()).isCloseTo(8 * US, within(1e-9));
        assertThat(each.get("rdma").medianP50Seconds()).isCloseTo(8 * US, within(1e-9));
        assertThat(each.get("udp").medianP50Seconds()).isCloseTo(40 * US, within(1e-9));
        // the one most probes answered over
        assertThat(link(v, "n1", "n2").evidence().p50Seconds()).isCloseTo(40 * US, within(1e-9));
    }

    @Test
    void aStrayWindowDoesNotMakeTheUnmeasuredNodesUnknown() {
        List<String> names = List.of("a", "b", "c", "d", "e");
        // one agent's pingmesh happened to probe one other node of the set; nothing else was measured
        Verdicts v = Gate.decide(reachable(names), probes("a", "b", 100, 0), DEFAULTS);
        assertThat(v.nodes()).allSatisfy(n -> assertThat(n.verdict()).as(n.toString()).isEqualTo(Verdict.PASS));
        assertThat(v.excluded()).isEmpty();
        assertThat(node(v, "c").evidence().linksJudged()).isZero();

        // a node whose pair was tried and gave nothing is unknown: it was meant to be measured
        List<LinkInput> tried = new ArrayList<>(probes("a", "b", 100, 0));
        tried.add(LinkInput.probes("c", "d", "udp", 0, 0, null));
        Verdicts t = Gate.decide(reachable(names), tried, DEFAULTS);
        assertThat(t.unknown()).containsExactly("c", "d");
        assertThat(node(t, "e").verdict()).isEqualTo(Verdict.PASS);
    }

    @Test
    void aLinkMeasuredTooLittleIsNotABadLink() {
        List<String> names = Hostlist.parse("n[1-6]");
        List<LinkInput> links = new ArrayList<>();
        for (Pair p : RingPlan.ring(names)) {
            links.addAll(probes(p.a(), p.b(), 100, 0));
        }
        links.addAll(probes("n1", "n4", 3, 0)); // 6 probes: unknown, both ends judged on their other links
        Verdicts v = Gate.decide(reachable(names), links, DEFAULTS);
        assertThat(link(v, "n1", "n4").verdict()).isEqualTo(Verdict.UNKNOWN);
        assertThat(v.excluded()).isEmpty();
        assertThat(v.excludedLinks()).isEmpty();
        assertThat(v.allPass()).isTrue();
    }

    @Test
    void theRepairPlanSkipsEveryPairAlreadyMeasuredWhicheverWayRound() {
        List<String> names = Hostlist.parse("n[1-6]");
        Set<Pair> tested = Set.of(new Pair("n2", "s"), new Pair("n3", "s"));
        assertThat(RingPlan.repair(List.of("s"), names, tested)).containsExactly(new Pair("s", "n1"), new Pair("s", "n4"));
    }
}
