package io.fabricd.preflight;

import static io.fabricd.preflight.GateFixtures.link;
import static io.fabricd.preflight.GateFixtures.node;
import static io.fabricd.preflight.GateFixtures.reachable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.fabricd.model.finding.Subject;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A host slow to answer is a bad node: how long each node's responder held the probes it answered
 * (their median, and their 90th percentile for a host that answers some late), against the set's with
 * a floor, excludes the node with a reason of its own and leaves its partners and its links clear;
 * fast hosts a few microseconds apart, a set slow throughout, a pause and one slow sample are not told
 * apart.
 */
class GateSlowHostTest {
    private static final double US = 1e-6;
    private static final double MS = 1e-3;
    private static final Policy DEFAULTS = Policy.defaults();

    /** The holds of the probes one window or round had answered, as an agent reports them: their median and 90th percentile. */
    record Held(Double p50, Double p90) {
        /** Of these holds (seconds), by nearest rank as the agents take them. */
        static Held of(double... holds) {
            double[] s = holds.clone();
            Arrays.sort(s);
            return new Held(rank(s, 0.5), rank(s, 0.9));
        }

        private static double rank(double[] sorted, double q) {
            return sorted[Math.max(0, (int) Math.ceil(q * sorted.length) - 1)];
        }
    }

    /**
     * A ring round over {@code names}: 100 probes each way, {@code lost} lost on the links of
     * {@code lossy} (none when null), 30 µs round trips, each answer held as its responder's entry in
     * {@code hold} says.
     */
    private static List<LinkInput> ring(List<String> names, Map<String, Held> hold, String lossy, long lost) {
        List<LinkInput> out = new ArrayList<>();
        for (Pair p : RingPlan.ring(names)) {
            long l = p.a().equals(lossy) || p.b().equals(lossy) ? lost : 0;
            out.add(probes(p.a(), p.b(), 100, l, hold.get(p.b())));
            out.add(probes(p.b(), p.a(), 100, l, hold.get(p.a())));
        }
        return out;
    }

    private static LinkInput probes(String a, String b, long sent, long lost, Held held) {
        return LinkInput.probes(a, b, "udp", sent, lost, 30 * US, held == null ? null : held.p50(), held == null ? null : held.p90());
    }

    /** Every node of {@code names} holding 20 to 60 µs at the median and 10 to 60 µs more at the 90th percentile (seeded). */
    private static Map<String, Held> fast(List<String> names, long seed) {
        Random r = new Random(seed);
        Map<String, Held> hold = new HashMap<>();
        for (String n : names) {
            double p50 = (20 + r.nextDouble() * 40) * US;
            hold.put(n, new Held(p50, p50 + (10 + r.nextDouble() * 50) * US));
        }
        return hold;
    }

    /** {@code n} holds of a fast host (20 to 60 µs), the first {@code late} of them {@code lateSeconds} instead. */
    private static double[] holds(Random r, int n, int late, double lateSeconds) {
        double[] h = new double[n];
        for (int i = 0; i < n; i++) {
            h[i] = i < late ? lateSeconds : (20 + r.nextDouble() * 40) * US;
        }
        return h;
    }

    private static Held held(double seconds) {
        return new Held(seconds, seconds);
    }

    @Test
    void aSlowHostIsExcludedForItselfAndItsPartnersAndLinksPass() {
        List<String> names = Hostlist.parse("gpu[001-008]");
        Map<String, Held> hold = fast(names, 1);
        hold.put("gpu005", new Held(24 * MS, 31 * MS));
        Verdicts v = Gate.decide(reachable(names), ring(names, hold, null, 0), DEFAULTS);

        NodeVerdict slow = node(v, "gpu005");
        assertThat(slow.verdict()).isEqualTo(Verdict.EXCLUDE);
        assertThat(slow.reasons()).hasSize(1);
        // starved throughout: its median is above, and its reason says that
        assertThat(slow.reasons().get(0)).startsWith("gpu005: slow host: it held the probes it answered 24.0 ms (median of 200 udp "
                + "probes; set median ").contains(", limit 1000 µs): a starved CPU or stalls slow every collective it joins; check its "
                + "load").endsWith(", then rerun").doesNotContain("link").doesNotContain("NIC");
        HostHold h = hostOf(slow).get(0);
        assertThat(h.transport()).isEqualTo("udp");
        assertThat(h.p50().holdSeconds()).isCloseTo(24 * MS, within(1e-12));
        assertThat(h.p50().probes()).isEqualTo(200);
        assertThat(h.p50().limitSeconds()).isEqualTo(1 * MS);
        assertThat(h.p50().above()).isTrue();
        assertThat(h.p90().holdSeconds()).isCloseTo(31 * MS, within(1e-12));
        assertThat(h.p90().above()).isTrue();
        assertThat(h.slow()).isTrue();
        assertThat(slow.evidence().badPartners()).isNull();

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
    void aHostThatAnswersSomeLateIsExcludedOnItsTailWhileItsMedianIsFast() {
        // intermittent stalls: one answer in five held 30 ms, the rest as fast as its partners'
        List<String> names = Hostlist.parse("gpu[001-008]");
        Map<String, Held> hold = fast(names, 11);
        Random r = new Random(11);
        List<LinkInput> links = new ArrayList<>();
        for (Pair p : RingPlan.ring(names)) {
            for (String[] d : new String[][] {{p.a(), p.b()}, {p.b(), p.a()}}) {
                links.add(probes(d[0], d[1], 100, 0, d[1].equals("gpu003") ? Held.of(holds(r, 100, 20, 30 * MS)) : hold.get(d[1])));
            }
        }
        Verdicts v = Gate.decide(reachable(names), links, DEFAULTS);

        assertThat(v.excluded()).containsExactly("gpu003");
        NodeVerdict slow = node(v, "gpu003");
        assertThat(slow.reasons()).singleElement().asString()
                .startsWith("gpu003: slow host: it held one in ten of the probes it answered 30.0 ms or longer (90th percentile of 200 udp "
                        + "probes; set 90th percentile ")
                .contains(", limit 1000 µs): a starved CPU or stalls slow every collective it joins").endsWith(", then rerun");
        HostHold h = hostOf(slow).get(0);
        assertThat(h.p50().holdSeconds()).as("its median is a fast host's").isLessThan(100 * US);
        assertThat(h.p50().above()).isFalse();
        assertThat(h.p90().holdSeconds()).isEqualTo(30 * MS);
        assertThat(h.p90().setMedianSeconds()).isLessThan(150 * US);
        assertThat(h.p90().above()).isTrue();
        assertThat(h.slow()).isTrue();
        for (String partner : List.of("gpu002", "gpu004")) {
            assertThat(node(v, partner).verdict()).as(partner).isEqualTo(Verdict.PASS);
        }
        assertThat(v.links()).allMatch(l -> l.verdict() == Verdict.PASS);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6})
    void aPauseOrOneSlowSampleExcludesNoNode(long seed) {
        // rounds of 50 probes: gpu02 paused once (two answers of each round held 200 ms), gpu05 held one answer 1 s
        List<String> names = Hostlist.parse("gpu[01-08]");
        Random r = new Random(seed);
        List<LinkInput> links = new ArrayList<>();
        for (Pair p : RingPlan.ring(names)) {
            for (String[] d : new String[][] {{p.a(), p.b()}, {p.b(), p.a()}}) {
                double[] h = switch (d[1]) {
                    case "gpu02" -> holds(r, 50, 2, 200 * MS);
                    case "gpu05" -> holds(r, 50, d[0].equals("gpu04") ? 1 : 0, 1.0);
                    default -> holds(r, 50, 0, 0);
                };
                links.add(probes(d[0], d[1], 50, 0, Held.of(h)));
            }
        }
        Verdicts v = Gate.decide(reachable(names), links, DEFAULTS);
        assertThat(v.excluded()).isEmpty();
        assertThat(v.allPass()).isTrue();
        assertThat(hostOf(node(v, "gpu02"))).singleElement().satisfies(x -> {
            assertThat(x.p90().holdSeconds()).isLessThan(100 * US);
            assertThat(x.slow()).isFalse();
        });
    }

    @Test
    void oneRoundCaughtInAPauseIsOutweighedByTheWindowsOfMinutes() {
        // a pause of 60 ms in the on-demand round: 6 of its partner's 50 answers held (its 90th percentile
        // high), while the pingmesh windows of three partners, 600 answers each, saw a fast host
        List<String> names = Hostlist.parse("n[1-6]");
        Map<String, Held> hold = fast(names, 7);
        Random r = new Random(7);
        List<LinkInput> links = new ArrayList<>(ring(names, hold, null, 0));
        links.removeIf(l -> l.b().equals("n3"));
        links.add(probes("n2", "n3", 50, 0, Held.of(holds(r, 50, 6, 60 * MS))));
        links.add(probes("n4", "n3", 50, 0, hold.get("n3")));
        for (String from : List.of("n1", "n5", "n6")) {
            links.add(probes(from, "n3", 600, 0, Held.of(holds(r, 600, 0, 0))));
        }
        Verdicts v = Gate.decide(reachable(names), links, DEFAULTS);
        assertThat(v.excluded()).isEmpty();
        assertThat(hostOf(node(v, "n3"))).singleElement().satisfies(x -> {
            assertThat(x.p90().probes()).isEqualTo(1900);
            assertThat(x.p90().holdSeconds()).isLessThan(100 * US);
        });
    }

    @Test
    void theBadLinksOfASlowHostAreHeldAgainstItNotItsPartners() {
        // a host stalled so long that some answers come too late for the probes' timeout: lost on both its links
        List<String> names = Hostlist.parse("n[1-6]");
        Map<String, Held> hold = fast(names, 2);
        hold.put("n3", held(40 * MS));
        Verdicts v = Gate.decide(reachable(names), ring(names, hold, "n3", 15), DEFAULTS);
        assertThat(v.excluded()).containsExactly("n3");
        assertThat(node(v, "n3").reasons()).singleElement().asString().startsWith("n3: slow host: ");
        assertThat(node(v, "n3").evidence().badPartners()).isNull();
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
        Map<String, Held> hold = fast(names, seed);
        // one busier than the others: five times the set's hold, still a fraction of the floor
        hold.put("gpu09", new Held(250 * US, 600 * US));
        Verdicts v = Gate.decide(reachable(names), ring(names, hold, null, 0), DEFAULTS);
        assertThat(v.excluded()).isEmpty();
        assertThat(v.allPass()).isTrue();
        assertThat(hostOf(node(v, "gpu09"))).singleElement().satisfies(x -> {
            assertThat(x.p50().holdSeconds()).isGreaterThan(3 * x.p50().setMedianSeconds());
            assertThat(x.p90().holdSeconds()).isGreaterThan(3 * x.p90().setMedianSeconds());
            assertThat(x.slow()).isFalse();
        });
    }

    @Test
    void aSetSlowThroughoutIsJudgedAgainstItselfAboveTheFloor() {
        List<String> names = Hostlist.parse("n[01-10]");
        Map<String, Held> hold = new HashMap<>();
        Random r = new Random(3);
        for (String n : names) {
            double p50 = (15 + r.nextDouble() * 10) * MS; // every host held up: none stands out
            hold.put(n, new Held(p50, p50 * (1.5 + r.nextDouble())));
        }
        Verdicts all = Gate.decide(reachable(names), ring(names, hold, null, 0), DEFAULTS);
        assertThat(all.excluded()).isEmpty();
        assertThat(hostOf(node(all, "n01")).get(0).p50().limitSeconds()).as("10 x the set's median, above the floor").isGreaterThan(150 * MS);

        // hosts that share CPUs differ by several times from scheduling alone: a tail 4 x the set's is not the host's own
        hold.put("n07", new Held(20 * MS, 160 * MS));
        assertThat(Gate.decide(reachable(names), ring(names, hold, null, 0), DEFAULTS).excluded()).isEmpty();
        hold.put("n07", new Held(20 * MS, 900 * MS)); // and one whose tail is an order of magnitude slower than the rest's
        Verdicts one = Gate.decide(reachable(names), ring(names, hold, null, 0), DEFAULTS);
        assertThat(one.excluded()).containsExactly("n07");
        assertThat(node(one, "n07").reasons()).singleElement().asString().contains("(90th percentile of 200 udp probes");
    }

    @Test
    void ofTwoNodesTheSlowOneIsJudgedAgainstTheFastOne() {
        List<String> names = List.of("a", "b");
        List<LinkInput> links = List.of(probes("a", "b", 50, 0, held(12 * MS)), probes("b", "a", 50, 0, held(35 * US)));
        Verdicts v = Gate.decide(reachable(names), links, DEFAULTS);
        assertThat(v.excluded()).containsExactly("b");
        assertThat(node(v, "a").verdict()).isEqualTo(Verdict.PASS);
    }

    @Test
    void theFloorIsThePolicys() {
        List<String> names = Hostlist.parse("n[1-8]");
        Map<String, Held> hold = fast(names, 4);
        hold.put("n2", new Held(40 * US, 3 * MS));
        assertThat(Gate.decide(reachable(names), ring(names, hold, null, 0), DEFAULTS).excluded()).containsExactly("n2");
        Policy lenient = new Policy(null, null, null, 3, 3, 5 * MS, 10, 0.8, 20, false, 1);
        assertThat(Gate.decide(reachable(names), ring(names, hold, null, 0), lenient).excluded()).isEmpty();
    }

    @Test
    void tooFewProbesAnsweredOrNoHoldSaidIsNoEvidence() {
        List<String> names = Hostlist.parse("n[1-6]");
        Map<String, Held> hold = fast(names, 5);
        hold.put("n4", held(50 * MS));
        // 8 probes each way: 16 answered of n4, fewer than the 20 a judgement needs
        List<LinkInput> few = new ArrayList<>();
        for (LinkInput l : ring(names, hold, null, 0)) {
            few.add(probes(l.a(), l.b(), l.b().equals("n4") ? 8 : 100, 0, hold.get(l.b())));
        }
        Verdicts v = Gate.decide(reachable(names), few, DEFAULTS);
        assertThat(node(v, "n4").verdict()).isEqualTo(Verdict.PASS);
        assertThat(node(v, "n4").evidence().host()).isNull();

        // agents of an older release say no hold: nothing is judged, nothing claimed
        List<LinkInput> silent = ring(names, hold, null, 0).stream()
                .map(l -> LinkInput.probes(l.a(), l.b(), l.transport(), l.sent(), l.lost(), l.p50Seconds())).toList();
        Verdicts old = Gate.decide(reachable(names), silent, DEFAULTS);
        assertThat(old.allPass()).isTrue();
        assertThat(old.nodes()).allSatisfy(n -> assertThat(n.evidence().host()).isNull());
    }

    @Test
    void agentsThatSayTheMedianAloneGiveNoTailEvidence() {
        // n4 answers one in five late; agents that report the median hold only cannot tell
        List<String> names = Hostlist.parse("n[1-6]");
        Map<String, Held> hold = fast(names, 9);
        hold.put("n4", new Held(40 * US, 30 * MS));
        hold.put("n2", held(20 * MS));
        List<LinkInput> medianOnly = ring(names, hold, null, 0).stream()
                .map(l -> LinkInput.probes(l.a(), l.b(), l.transport(), l.sent(), l.lost(), l.p50Seconds(), l.holdP50Seconds(), null))
                .toList();
        Verdicts v = Gate.decide(reachable(names), medianOnly, DEFAULTS);
        assertThat(v.excluded()).containsExactly("n2");
        assertThat(hostOf(node(v, "n4"))).singleElement().satisfies(x -> {
            assertThat(x.p90()).isNull();
            assertThat(x.slow()).isFalse();
        });
    }

    @Test
    void anUnansweredNodeStaysUnknownAndAFindingKeepsItsReasonFirst() {
        List<String> names = Hostlist.parse("n[1-6]");
        Map<String, Held> hold = fast(names, 6);
        hold.put("n2", held(30 * MS));
        hold.put("n5", held(30 * MS));
        List<NodeInput> nodes = new ArrayList<>(reachable(names));
        nodes.set(1, NodeInput.unreachable("n2", "connect timed out"));
        nodes.set(4, NodeInput.reachable("n5", List.of(new FindingInput("pfc_missing", io.fabricd.model.finding.Severity.CRITICAL,
                "no PFC", "enable PFC", Subject.HOST))));
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
                links.add(LinkInput.probes(d[0], d[1], "udp", 100, 0, 30 * US, 400 * US, 900 * US));
                links.add(LinkInput.probes(d[0], d[1], "rdma", 100, 0, 8 * US, 2 * US, 3 * US));
            }
        }
        Verdicts v = Gate.decide(reachable(names), links, DEFAULTS);
        assertThat(v.allPass()).isTrue();
        assertThat(hostOf(node(v, "n1"))).extracting(HostHold::transport).containsExactly("rdma", "udp");
    }

    private static List<HostHold> hostOf(NodeVerdict n) {
        return n.evidence().host();
    }
}
