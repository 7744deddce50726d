package io.fabricd.preflight;

import static io.fabricd.preflight.GateFixtures.link;
import static io.fabricd.preflight.GateFixtures.node;
import static io.fabricd.preflight.GateFixtures.reachable;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.model.finding.Severity;
import io.fabricd.model.finding.Subject;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class GateTest {
    private static final double US = 1e-6;
    private static final Policy DEFAULTS = Policy.defaults();

    /** Both directions, {@code sent} probes each, {@code lost} lost each. */
    private static List<LinkInput> both(String a, String b, long sent, long lost, double p50) {
        return List.of(LinkInput.probes(a, b, "udp", sent, lost, p50), LinkInput.probes(b, a, "udp", sent, lost, p50));
    }

    /** A clean ring over {@code names}: 100 probes each way, nothing lost, 30 µs. */
    private static List<LinkInput> cleanRing(List<String> names) {
        List<LinkInput> out = new ArrayList<>();
        for (Pair p : RingPlan.ring(names)) {
            out.addAll(both(p.a(), p.b(), 100, 0, 30 * US));
        }
        return out;
    }

    @Test
    void aNodeWithACriticalFindingIsExcludedInWords() {
        List<String> names = Hostlist.parse("gpu[001-008]");
        List<NodeInput> nodes = new ArrayList<>(reachable(names));
        nodes.set(6, NodeInput.reachable("gpu007", List.of(
                new FindingInput("pfc_missing", Severity.CRITICAL, "RoCE traffic class 3 has no PFC", "fix the switch/NIC PFC config.",
                        Subject.port("mlx5_0", 1)),
                new FindingInput("ecn_disabled", Severity.WARNING, "ECN off", "enable ECN", Subject.HOST))));
        Verdicts v = Gate.decide(nodes, cleanRing(names), DEFAULTS);
        NodeVerdict n = node(v, "gpu007");
        assertThat(n.verdict()).isEqualTo(Verdict.EXCLUDE);
        assertThat(n.reasons()).containsExactly(
                "gpu007: critical finding pfc_missing on mlx5_0 port 1 (RoCE traffic class 3 has no PFC): fix the switch/NIC PFC config, then rerun");
        assertThat(n.evidence().findings()).containsExactly("pfc_missing");
        assertThat(n.evidence().state()).isEqualTo(NodeInput.State.REACHABLE);
        assertThat(v.excluded()).containsExactly("gpu007");
        assertThat(v.kept()).isEqualTo(7);
        assertThat(v.nodes()).filteredOn(x -> !x.node().equals("gpu007")).allMatch(x -> x.verdict() == Verdict.PASS && x.reasons().isEmpty());
        assertThat(v.links()).allMatch(l -> l.verdict() == Verdict.PASS);
    }

    @Test
    void warningsExcludeWhenThePolicySaysSo() {
        List<NodeInput> nodes = List.of(NodeInput.reachable("a", List.of(new FindingInput("ecn_disabled", Severity.WARNING, "ECN off", null,
                Subject.HOST))), NodeInput.reachable("b", List.of()));
        Policy warning = new Policy(Policy.atLeast(Severity.WARNING), null, null, 3, 3, 1e-3, 10, 0.8, 20, false, 1);
        Verdicts v = Gate.decide(nodes, List.of(), warning);
        assertThat(v.excluded()).containsExactly("a");
        assertThat(node(v, "a").reasons()).containsExactly("a: warning finding ecn_disabled (ECN off): see fabricd diagnose on the node, then rerun");
        assertThat(Gate.decide(nodes, List.of(), DEFAULTS).excluded()).isEmpty();
    }

    @Test
    void anUnreachableNodeIsUnknownAndExcludedUnlessUnknownPasses() {
        List<String> names = Hostlist.parse("n[1-6]");
        List<NodeInput> nodes = new ArrayList<>(reachable(names));
        nodes.set(2, NodeInput.unreachable("n3", "connection refused"));
        List<LinkInput> links = new ArrayList<>();
        for (Pair p : RingPlan.ring(names)) {
            boolean toN3 = p.a().equals("n3") || p.b().equals("n3");
            String from = p.a().equals("n3") ? p.b() : p.a();
            String to = p.a().equals("n3") ? p.a() : p.b();
            links.addAll(toN3 ? List.of(LinkInput.probes(from, to, "udp", 100, 100, null)) : both(p.a(), p.b(), 100, 0, 30 * US));
        }
        Verdicts v = Gate.decide(nodes, links, DEFAULTS);
        assertThat(node(v, "n3").verdict()).isEqualTo(Verdict.UNKNOWN);
        assertThat(node(v, "n3").reasons()).containsExactly(
                "n3: agent unreachable (connection refused): check that fabricd runs there and its port is open, then rerun");
        assertThat(v.excluded()).containsExactly("n3");
        // its dead links are held against it, not against its neighbours
        assertThat(node(v, "n2").verdict()).isEqualTo(Verdict.PASS);
        assertThat(node(v, "n4").verdict()).isEqualTo(Verdict.PASS);
        assertThat(link(v, "n2", "n3").blame()).isEqualTo("n3");
        assertThat(link(v, "n2", "n3").reasons()).containsExactly("link n2<->n3: 100 % probe loss (set median 0 %): explained by n3 (unknown)");

        Verdicts lenient = Gate.decide(nodes, links, DEFAULTS.withUnknownPasses(true));
        assertThat(node(lenient, "n3").verdict()).isEqualTo(Verdict.UNKNOWN);
        assertThat(lenient.excluded()).isEmpty();
        assertThat(lenient.kept()).isEqualTo(6);
    }

    @Test
    void garbageRefusalUnavailableAndStaleSayWhatToCheck() {
        List<NodeInput> nodes = List.of(new NodeInput("a", NodeInput.State.GARBAGE, "not JSON\nat all", List.of()),
                new NodeInput("b", NodeInput.State.REFUSED, "answered 401", List.of()),
                new NodeInput("c", NodeInput.State.UNAVAILABLE, "answered 404: an older fabricd without preflight: upgrade it", List.of()),
                new NodeInput("d", NodeInput.State.STALE, "collected at 2025-06-01T10:00:00Z, 12 min ago", List.of()));
        Verdicts v = Gate.decide(nodes, List.of(), DEFAULTS);
        assertThat(node(v, "a").reasons()).containsExactly(
                "a: agent's answer is not a preflight answer (not JSON?at all): check that the port is fabricd's and its version, then rerun");
        assertThat(node(v, "b").reasons()).containsExactly("b: agent refused the probe key (answered 401): check that the key is the fabric's,"
                + " that both clocks are right (NTP) and that the agent and this command are the same fabricd release, then rerun");
        assertThat(node(v, "c").reasons()).containsExactly(
                "c: agent could not answer (answered 404: an older fabricd without preflight: upgrade it), then rerun");
        assertThat(node(v, "d").reasons()).containsExactly("d: its collection is stale (collected at 2025-06-01T10:00:00Z, 12 min ago):"
                + " check the agent's log and its /readyz (a collection that hangs or fails), then rerun");
        assertThat(v.nodes()).extracting(n -> n.evidence().state())
                .containsExactly(NodeInput.State.GARBAGE, NodeInput.State.REFUSED, NodeInput.State.UNAVAILABLE, NodeInput.State.STALE);
        assertThat(v.unknown()).containsExactly("a", "b", "c", "d");
        assertThat(v.kept()).isZero();
    }

    @Test
    void aLossyLinkBetweenTwoGoodNodesIsTheLinks() {
        List<String> names = Hostlist.parse("gpu[001-008]");
        List<LinkInput> links = new ArrayList<>(cleanRing(names));
        links.removeIf(l -> new Pair(l.a(), l.b()).sameNodes(new Pair("gpu003", "gpu004")));
        links.addAll(both("gpu003", "gpu004", 100, 12, 30 * US));
        Verdicts v = Gate.decide(reachable(names), links, DEFAULTS);
        LinkVerdict l = link(v, "gpu003", "gpu004");
        assertThat(l.verdict()).isEqualTo(Verdict.EXCLUDE);
        assertThat(l.badLink()).isTrue();
        assertThat(l.reasons()).containsExactly(
                "link gpu003<->gpu004: 12 % probe loss (set median 0 %): check cables/optics on both ends and the switch ports' error counters");
        assertThat(l.evidence()).extracting(LinkVerdict.Evidence::sent, LinkVerdict.Evidence::lost, LinkVerdict.Evidence::blame)
                .containsExactly(200L, 24L, "link");
        assertThat(v.excluded()).isEmpty();
        assertThat(v.nodes()).allMatch(n -> n.verdict() == Verdict.PASS);
        assertThat(v.badLinks()).containsExactly(l);
        assertThat(v.allPass()).isFalse();
        assertThat(v.suspects()).isEmpty();
    }

    @Test
    void aNodeInThreeBadLinksIsExcludedAndItsPartnersPass() {
        List<String> names = Hostlist.parse("n[01-10]");
        List<NodeInput> nodes = new ArrayList<>(reachable(names));
        nodes.add(NodeInput.reachable("x", List.of()));
        List<LinkInput> links = new ArrayList<>(cleanRing(names));
        for (String p : List.of("n02", "n05", "n08")) {
            links.addAll(both("x", p, 100, 0, 400 * US));
        }
        Verdicts v = Gate.decide(nodes, links, DEFAULTS);
        NodeVerdict x = node(v, "x");
        assertThat(x.verdict()).isEqualTo(Verdict.EXCLUDE);
        assertThat(x.reasons()).containsExactly("x: bad links with 3 nodes that are otherwise good (n02, n05, n08): check its NIC, cable and switch port, then rerun");
        assertThat(x.evidence().badPartners()).containsExactly("n02", "n05", "n08");
        assertThat(v.excluded()).containsExactly("x");
        for (String p : List.of("n02", "n05", "n08")) {
            assertThat(node(v, p).verdict()).isEqualTo(Verdict.PASS);
            assertThat(link(v, "x", p).blame()).isEqualTo("x");
            assertThat(link(v, "x", p).reasons()).containsExactly("link " + p + "<->x: p50 400 µs (set median 30 µs): explained by x (exclude)");
        }
        assertThat(v.badLinks()).isEmpty();
    }

    @Test
    void thresholdsAreRelativeToTheSetsMedian() {
        List<String> names = Hostlist.parse("n[1-9]");
        List<LinkInput> links = new ArrayList<>();
        for (Pair p : RingPlan.ring(names)) {
            long lost = switch (p.a()) {
                case "n2" -> 5;  // 5 %: under 3 x the median 2 %
                case "n5" -> 8;  // 8 %: over 6 %
                default -> 2;
            };
            double p50 = switch (p.a()) {
                case "n3" -> 250 * US; // 2.5 x the median 100 µs
                case "n7" -> 400 * US; // 4 x
                default -> 100 * US;
            };
            links.addAll(both(p.a(), p.b(), 100, lost, p50));
        }
        Verdicts v = Gate.decide(reachable(names), links, DEFAULTS.withBounds(AbsoluteBounds.NONE));
        assertThat(link(v, "n2", "n3").verdict()).isEqualTo(Verdict.PASS);
        assertThat(link(v, "n5", "n6").verdict()).isEqualTo(Verdict.EXCLUDE);
        assertThat(link(v, "n5", "n6").reasons()).singleElement().asString().startsWith("link n5<->n6: 8.0 % probe loss (set median 2.0 %)");
        assertThat(link(v, "n3", "n4").verdict()).isEqualTo(Verdict.PASS);
        assertThat(link(v, "n7", "n8").reasons()).singleElement().asString().startsWith("link n7<->n8: p50 400 µs (set median 100 µs)");
        assertThat(link(v, "n5", "n6").evidence().medianLossRatio()).isEqualTo(0.02);
    }

    @Test
    void aMajorityOfBadLinksFailsTheAbsoluteBoundsThoughTheMediansRiseWithThem() {
        List<String> names = Hostlist.parse("n[1-9]");
        List<LinkInput> lossy = new ArrayList<>();
        List<LinkInput> slow = new ArrayList<>();
        for (Pair p : RingPlan.ring(names)) {
            // seven links of nine (a spine's fault hurts most pairs) lose 6 %, or take 3 ms over UDP: the medians are theirs
            boolean clean = p.a().equals("n1") || p.a().equals("n2");
            lossy.addAll(both(p.a(), p.b(), 100, clean ? 0 : 6, 30 * US));
            slow.addAll(both(p.a(), p.b(), 100, 0, clean ? 30 * US : 3000 * US));
        }
        for (List<LinkInput> links : List.of(lossy, slow)) {
            assertThat(Gate.decide(reachable(names), links, DEFAULTS.withBounds(AbsoluteBounds.NONE)).excludedLinks()).isEmpty();
            Verdicts v = Gate.decide(reachable(names), links, DEFAULTS);
            assertThat(v.excludedLinks()).extracting(LinkVerdict::a).containsExactly("n1", "n3", "n4", "n5", "n6", "n7", "n8");
        }
        assertThat(link(Gate.decide(reachable(names), lossy, DEFAULTS), "n3", "n4").reasons()).singleElement().asString()
                .startsWith("link n3<->n4: 6.0 % probe loss (set median 6.0 %, above the absolute bound of 2.0 %): ");
        assertThat(link(Gate.decide(reachable(names), slow, DEFAULTS), "n3", "n4").reasons()).singleElement().asString()
                .startsWith("link n3<->n4: p50 3000 µs (set median 3000 µs, above the absolute bound of 2000 µs): ");
    }

    @Test
    void lossUnderOnePercentAndLatencyUnderFiftyMicrosecondsMoreAreNeverBad() {
        List<String> names = Hostlist.parse("n[1-9]");
        List<LinkInput> links = new ArrayList<>();
        for (Pair p : RingPlan.ring(names)) {
            boolean odd = p.a().equals("n4");
            links.addAll(both(p.a(), p.b(), 100, odd ? 1 : 0, odd ? 45 * US : 10 * US)); // 1 %, 4.5 x but +35 µs
        }
        Verdicts v = Gate.decide(reachable(names), links, DEFAULTS);
        assertThat(v.allPass()).isTrue();
        assertThat(v.excluded()).isEmpty();
    }

    @Test
    void tooFewSamplesAreUnknown() {
        List<String> names = Hostlist.parse("n[1-8]");
        List<NodeInput> nodes = new ArrayList<>(reachable(names));
        nodes.add(NodeInput.reachable("quiet", List.of()));
        List<LinkInput> links = new ArrayList<>(cleanRing(names));
        links.addAll(both("quiet", "n1", 5, 0, 30 * US));
        Verdicts v = Gate.decide(nodes, links, DEFAULTS);
        LinkVerdict l = link(v, "quiet", "n1");
        assertThat(l.verdict()).isEqualTo(Verdict.UNKNOWN);
        assertThat(l.reasons()).containsExactly(
                "link n1<->quiet: 10 probes, fewer than 20, and no bandwidth measured: rerun with a longer probe round (--timeout)");
        NodeVerdict q = node(v, "quiet");
        assertThat(q.verdict()).isEqualTo(Verdict.UNKNOWN);
        assertThat(q.reasons()).singleElement().asString().startsWith("quiet: no link measured enough to judge (fewer than 20 probes");
        assertThat(v.excluded()).containsExactly("quiet");
        assertThat(node(v, "n1").verdict()).isEqualTo(Verdict.PASS);
        assertThat(v.suspectNodes()).containsExactly("quiet");
    }

    @Test
    void aTestWithoutACeilingKeepsWhatItMovedAndIsNotJudged() {
        List<String> names = Hostlist.parse("n[1-4]");
        List<LinkInput> links = new ArrayList<>(cleanRing(names));
        links.add(LinkInput.bandwidth("n1", "n2", null, 5e10, null, "50.0 Gb/s, no ceiling known for this path (limit unknown): not judged"));
        Verdicts v = Gate.decide(reachable(names), links, DEFAULTS);
        LinkVerdict l = link(v, "n1", "n2");
        assertThat(l.verdict()).isEqualTo(Verdict.PASS); // on its probes
        assertThat(l.evidence().bandwidthRatio()).isNull();
        assertThat(l.evidence().rate()).isEqualTo(new LinkVerdict.Rate(5e10, null));
        assertThat(l.evidence().bandwidthWhy()).isNotNull();
    }

    @Test
    void bandwidthBelowTheRatioMakesALinkBad() {
        List<String> names = Hostlist.parse("n[1-8]");
        List<LinkInput> links = new ArrayList<>(cleanRing(names));
        links.add(LinkInput.bandwidth("n1", "n2", 0.93, null));
        links.add(LinkInput.bandwidth("n2", "n1", 0.85, null));
        // n4 and n5 pass on bandwidth with their other neighbours: the link between them is the slow one
        links.add(LinkInput.bandwidth("n3", "n4", 0.92, null));
        links.add(LinkInput.bandwidth("n5", "n6", 0.92, null));
        links.add(LinkInput.bandwidth("n4", "n5", 0.91, null));
        links.add(LinkInput.bandwidth("n5", "n4", 0.79, 316e9, 400e9, null));
        links.add(LinkInput.bandwidth("n6", "n7", null, "peer busy"));
        Verdicts v = Gate.decide(reachable(names), links, DEFAULTS);
        assertThat(link(v, "n1", "n2").verdict()).isEqualTo(Verdict.PASS);
        LinkVerdict slow = link(v, "n4", "n5");
        assertThat(slow.badLink()).isTrue();
        assertThat(slow.reasons()).containsExactly(
                "link n4<->n5: 79 % of the link's ceiling (316 Gb/s of 400 Gb/s, at least 80 % expected): check link speed and width,"
                        + " cables/optics and PCIe on both ends");
        assertThat(slow.evidence().bandwidthRatio()).isEqualTo(0.79);
        assertThat(slow.evidence().rate()).isEqualTo(new LinkVerdict.Rate(316e9, 400e9));
        assertThat(link(v, "n6", "n7").evidence().bandwidthWhy()).isEqualTo("peer busy");
        assertThat(v.excluded()).isEmpty();
    }

    @Test
    void anEndWithNoGoodLinkIsASuspectUntilRepairTells() {
        List<String> names = Hostlist.parse("n[1-8]");
        List<NodeInput> nodes = new ArrayList<>(reachable(names));
        nodes.add(NodeInput.reachable("s", List.of()));
        List<LinkInput> links = new ArrayList<>(cleanRing(names));
        links.addAll(both("s", "n3", 100, 30, 30 * US));
        Verdicts first = Gate.decide(nodes, links, DEFAULTS);
        assertThat(first.suspects()).containsExactly(new Pair("n3", "s"));
        assertThat(node(first, "s").verdict()).isEqualTo(Verdict.UNKNOWN);
        assertThat(node(first, "s").reasons()).containsExactly(
                "s: bad link with n3 and no other link that passed on what that one failed (probes, bandwidth): could not tell which end is"
                        + " bad; rerun to pair it with others");
        assertThat(node(first, "n3").verdict()).isEqualTo(Verdict.PASS);
        assertThat(link(first, "s", "n3").blame()).isEqualTo(LinkVerdict.BLAME_UNKNOWN);
        assertThat(first.suspectNodes()).containsExactly("s");
        assertThat(first.knownGood()).doesNotContain("s", "n3").contains("n1", "n8");

        List<Pair> repair = RingPlan.repair(first.suspectNodes(), first.knownGood(), Set.of(new Pair("s", "n3")));
        assertThat(repair).hasSize(2);
        for (Pair p : repair) {
            links.addAll(both(p.a(), p.b(), 100, 30, 30 * US));
        }
        Verdicts second = Gate.decide(nodes, links, DEFAULTS);
        assertThat(node(second, "s").verdict()).isEqualTo(Verdict.EXCLUDE);
        assertThat(second.excluded()).containsExactly("s");
        assertThat(second.suspects()).isEmpty();
        assertThat(second.nodes()).filteredOn(n -> !n.node().equals("s")).allMatch(n -> n.verdict() == Verdict.PASS);
    }

    @Test
    void repairThatFindsTheSuspectGoodLeavesABadLink() {
        List<String> names = Hostlist.parse("n[1-8]");
        List<NodeInput> nodes = new ArrayList<>(reachable(names));
        nodes.add(NodeInput.reachable("s", List.of()));
        List<LinkInput> links = new ArrayList<>(cleanRing(names));
        links.addAll(both("s", "n3", 100, 30, 30 * US));
        links.addAll(both("s", "n6", 100, 0, 30 * US));
        Verdicts v = Gate.decide(nodes, links, DEFAULTS);
        assertThat(link(v, "s", "n3").badLink()).isTrue();
        assertThat(v.excluded()).isEmpty();
    }

    @Test
    void aGoodNodeBetweenTwoBadCablesIsClearedByRepair() {
        List<String> names = Hostlist.parse("n[01-12]");
        List<LinkInput> links = new ArrayList<>(cleanRing(names));
        links.removeIf(l -> l.a().equals("n05") || l.b().equals("n05"));
        links.addAll(both("n04", "n05", 100, 10, 30 * US));
        links.addAll(both("n05", "n06", 100, 10, 30 * US));
        Verdicts ring = Gate.decide(reachable(names), links, DEFAULTS);
        // a ring alone cannot tell this from a bad NIC: n05 goes, and is worth re-pairing
        assertThat(ring.excluded()).containsExactly("n05");
        assertThat(ring.suspectNodes()).containsExactly("n05");

        Set<Pair> tested = new HashSet<>(RingPlan.ring(names));
        for (Pair p : RingPlan.repair(ring.suspectNodes(), ring.knownGood(), tested)) {
            links.addAll(both(p.a(), p.b(), 100, 0, 30 * US));
        }
        Verdicts repaired = Gate.decide(reachable(names), links, DEFAULTS);
        assertThat(repaired.excluded()).isEmpty();
        assertThat(repaired.badLinks()).extracting(l -> l.a() + "-" + l.b()).containsExactly("n04-n05", "n05-n06");
    }

    @Test
    void aNodeExcludedForItsFindingsIsNotReRun() {
        List<String> names = Hostlist.parse("n[1-6]");
        List<NodeInput> nodes = new ArrayList<>(reachable(names));
        nodes.set(0, NodeInput.reachable("n1", List.of(new FindingInput("port_down", Severity.CRITICAL, "down", "cable it", Subject.HOST))));
        Verdicts v = Gate.decide(nodes, cleanRing(names), DEFAULTS);
        assertThat(v.suspectNodes()).isEmpty();
        assertThat(v.knownGood()).containsExactly("n2", "n3", "n4", "n5", "n6");
    }

    @Test
    void reasonsStayOneBoundedLineWhateverAnAgentSent() {
        List<NodeInput> nodes = List.of(NodeInput.reachable("a", List.of(new FindingInput("x\ny", Severity.CRITICAL, "line one\r\nline two",
                "z".repeat(5000), Subject.device("d\n0")))), new NodeInput("b", NodeInput.State.UNREACHABLE, "w".repeat(5000), null));
        Verdicts v = Gate.decide(nodes, List.of(), DEFAULTS);
        for (NodeVerdict n : v.nodes()) {
            assertThat(n.reasons()).allSatisfy(r -> assertThat(r).doesNotContain("\n", "\r").hasSizeLessThan(1200));
        }
    }

    @Test
    void linksOutsideTheSetAndDuplicateNamesAreLeftOut() {
        List<NodeInput> nodes = List.of(NodeInput.reachable("a", List.of()), NodeInput.reachable("b", List.of()),
                NodeInput.unreachable("a", "ignored: a is given twice"));
        List<LinkInput> links = new ArrayList<>(both("a", "b", 100, 0, 30 * US));
        links.addAll(both("a", "elsewhere", 100, 100, 30 * US));
        links.add(LinkInput.probes("a", "a", "udp", 100, 100, null));
        Verdicts v = Gate.decide(nodes, links, DEFAULTS);
        assertThat(v.nodes()).hasSize(2).allMatch(n -> n.verdict() == Verdict.PASS);
        assertThat(v.links()).hasSize(1);
        assertThat(v.allPass()).isTrue();
        assertThat(v.kept()).isEqualTo(2);
    }

    @Test
    void theLargestSetWithEveryLinkBadIsDecidedGreedily() {
        List<String> names = Hostlist.parse("n[00001-20000]");
        List<LinkInput> links = new ArrayList<>();
        for (Pair p : RingPlan.ring(names)) {
            links.add(new LinkInput(p.a(), p.b(), "udp", 100, 0, 30 * US, null, null, 0.5, null, null, null, null));
        }
        Verdicts v = Gate.decide(reachable(names), links, DEFAULTS);
        // the first goes, its neighbours then have one bad partner left, the next but one goes, ...
        assertThat(v.excluded()).hasSize(10_000).startsWith("n00001", "n00003");
        assertThat(v.unknown()).isEmpty();
        assertThat(v.links()).allMatch(l -> l.verdict() == Verdict.EXCLUDE && !l.badLink());
    }

    @Test
    void nothingMeasuredJudgesNodesOnTheirFindingsAlone() {
        Verdicts v = Gate.decide(reachable(List.of("a", "b")), List.of(), DEFAULTS);
        assertThat(v.allPass()).isTrue();
        assertThat(v.links()).isEmpty();
    }
}
