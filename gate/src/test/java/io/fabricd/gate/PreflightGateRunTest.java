package io.fabricd.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.gate.wire.PreflightWire;
import io.fabricd.preflight.LinkVerdict;
import io.fabricd.preflight.NodeInput;
import io.fabricd.preflight.NodeVerdict;
import io.fabricd.preflight.Policy;
import io.fabricd.preflight.Verdict;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A whole preflight run, planning and joining included, over fleets answered from memory
 * ({@link FakeFleet}: no network): a thousand nodes whose agents report many probe windows each, a
 * set whose addresses are long, agents whose collection is stale.
 */
class PreflightGateRunTest {
    @Test
    void aThousandNodesWithManyProbeWindowsArePlannedAndJoinedWithinTheBudget() {
        FakeFleet fleet = new FakeFleet("gpu", 1000, 40);
        for (int i = 50; i <= 1000; i += 100) {
            fleet.quiet.add(String.format("gpu%04d", i));
        }
        StringWriter progress = new StringWriter();
        // a hang guard, not a speed claim: the old repair planning asked every pair of the set whether it
        // was measured, each by a walk over all of the evidence, and ran minutes past --timeout here
        long t0 = System.nanoTime();
        GateRun.Result r = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> fleet.run(Duration.ofSeconds(60), progress),
                progress::toString);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        System.out.println("preflight over 1000 nodes of synthetic evidence (40 probe windows each, 10 suspects): " + ms + " ms");
        assertThat(progress.toString()).contains("state: 1000 of 1000 agents answered", "probe round: 1000 of 1000 pairs measured",
                "bandwidth ring: 1000 links both ways, 2000 tests measured", "repair round: 10 suspects re-paired");
        assertThat(r.verdicts().excluded()).hasSize(10).allMatch(fleet.quiet::contains);
        for (NodeVerdict n : r.verdicts().nodes()) {
            if (fleet.quiet.contains(n.node())) {
                assertThat(n.verdict()).as(n.toString()).isEqualTo(Verdict.EXCLUDE);
                assertThat(n.reasons().get(0)).contains(": bad links with 4 nodes that are otherwise good");
            } else {
                assertThat(n.verdict()).as(n.toString()).isEqualTo(Verdict.PASS);
            }
        }
        assertThat(r.elapsed()).isLessThan(Duration.ofSeconds(60));
    }

    @Test
    void theProbeRoundAsksAgainForEveryPairItsAgentsCouldNotProbeUntilEachHasItsSamples() throws Exception {
        // freshly started agents: each one's first round cannot fetch its peers' endpoints within the
        // agents' 2 s (a cold JVM), and says so per peer in an answer that is otherwise a good one
        FakeFleet fleet = new FakeFleet("gpu", 24, 0);
        Map<String, AtomicInteger> rounds = new ConcurrentHashMap<>();
        ObjectMapper json = new ObjectMapper();
        for (NodeSet.Node n : fleet.nodes) {
            fleet.override.put(n.name() + PreflightWire.PROBE, body -> {
                if (rounds.computeIfAbsent(n.name(), k -> new AtomicInteger()).incrementAndGet() > 1) {
                    return null; // warm now: answered as usual
                }
                try {
                    List<Map<String, Object>> results = new ArrayList<>();
                    for (JsonNode p : json.readTree(body).path("peers")) {
                        Map<String, Object> r = new LinkedHashMap<>();
                        r.put("peer", p.asText());
                        r.put("peer_host", null);
                        r.put("sent", 0);
                        r.put("lost", 0);
                        r.put("late", 0);
                        r.put("p50_seconds", null);
                        r.put("p99_seconds", null);
                        r.put("error", "cannot reach " + p.asText() + ": no complete answer within 2000 ms");
                        results.add(r);
                    }
                    return json.writeValueAsString(Map.of("node", n.name(), "results", results));
                } catch (IOException e) {
                    return e;
                }
            });
        }
        StringWriter progress = new StringWriter();
        GateRun.Result r = new GateRun(fleet.nodes, new GateRun.Settings(FakeFleet.settings(Duration.ofSeconds(60)).key(), false, true,
                false, Duration.ofMillis(200), 65_536, Policy.defaults(), Duration.ofSeconds(60)), new PrintWriter(progress), fleet,
                Clock.systemUTC()).run();
        // every ring link measured on the second attempt, every node passes: no "0 probes", no repair round
        assertThat(r.verdicts().nodes()).as(progress.toString()).allSatisfy(n -> assertThat(n.verdict()).isEqualTo(Verdict.PASS));
        assertThat(r.verdicts().links()).hasSize(24).allSatisfy(l -> assertThat(l.verdict()).as(l.toString()).isEqualTo(Verdict.PASS));
        assertThat(rounds.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(2));
        // and what the first attempt met is said, on stderr and in the phase's record
        assertThat(progress.toString()).contains("probe round: 24 of 24 pairs measured (50 x 64 B each way), 2 attempts; 48 tries gave no"
                + " probes (gpu0001->gpu0002: cannot reach gpu0002:9530: no complete answer within 2000 ms)").doesNotContain("repair round");
        assertThat(r.phases()).extracting(GatePhase::phase).containsExactly(GatePhase.Kind.STATE, GatePhase.Kind.PROBE_ROUND);
        GatePhase round = r.phases().get(1);
        assertThat(round.status()).isEqualTo(GatePhase.Status.COMPLETE);
        assertThat(round.planned()).isEqualTo(24);
        assertThat(round.done()).isEqualTo(24);
        assertThat(round.attempts()).isEqualTo(2);
        assertThat(round.problems()).hasSize(GatePhase.MAX_PROBLEMS).first().asString()
                .isEqualTo("gpu0001->gpu0002: cannot reach gpu0002:9530: no complete answer within 2000 ms");
    }

    @Test
    void aPairNoAttemptCouldProbeIsKeptAsTriedWithWhyAndTheRoundEndsByItsPhase() {
        // one agent whose every round fails the same way: its two pairs are asked again from both ends,
        // and both ends' partners measure them; a peer no one can probe is said as such on its links
        FakeFleet fleet = new FakeFleet("gpu", 6, 0);
        for (NodeSet.Node n : fleet.nodes) {
            fleet.override.put(n.name() + PreflightWire.PROBE, body -> {
                String rounds = body.contains("gpu0003:9530") ? "{\"node\":\"" + n.name() + "\",\"results\":[" + String.join(",",
                        peersOf(body).stream().map(p -> "{\"peer\":\"" + p + "\",\"sent\":" + (p.equals("gpu0003:9530") ? "0,"
                                + "\"error\":\"gpu0003:9530 runs no UDP responder\"}" : "50,\"lost\":0,\"p50_seconds\":2e-5,\"error\":null}"))
                        .toList()) + "]}" : null;
                return n.name().equals("gpu0003") ? new IOException("cannot reach gpu0003:9530: connection refused") : rounds;
            });
        }
        StringWriter progress = new StringWriter();
        long t0 = System.nanoTime();
        GateRun.Result r = new GateRun(fleet.nodes, new GateRun.Settings(FakeFleet.settings(Duration.ofSeconds(8)).key(), false, true,
                false, Duration.ofMillis(200), 65_536, Policy.defaults(), Duration.ofSeconds(8)), new PrintWriter(progress), fleet,
                Clock.systemUTC()).run();
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(8 + 2));
        GatePhase round = r.phases().get(1);
        assertThat(round.status()).as(progress.toString()).isEqualTo(GatePhase.Status.PARTIAL);
        assertThat(round.planned()).isEqualTo(6);
        assertThat(round.done()).isEqualTo(4);
        assertThat(round.attempts()).isGreaterThan(1);
        assertThat(round.summary()).contains("2 pairs without their 20 probes");
        for (String other : List.of("gpu0002", "gpu0004")) {
            LinkVerdict l = r.verdicts().links().stream().filter(x -> x.a().equals(other) || x.b().equals(other))
                    .filter(x -> x.a().equals("gpu0003") || x.b().equals("gpu0003")).findFirst().orElseThrow();
            assertThat(l.verdict()).isEqualTo(Verdict.UNKNOWN);
            assertThat(l.reasons()).singleElement().asString().contains("0 probes, fewer than 20, and no bandwidth measured (")
                    .containsAnyOf("gpu0003->" + other + ": cannot reach gpu0003:9530: connection refused",
                            other + "->gpu0003: gpu0003:9530 runs no UDP responder")
                    .endsWith("check both agents' probe responders and logs, then rerun");
            assertThat(l.evidence().probeWhy()).isNotNull();
        }
    }

    private static List<String> peersOf(String body) {
        try {
            List<String> out = new ArrayList<>();
            new ObjectMapper().readTree(body).path("peers").forEach(p -> out.add(p.asText()));
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void theStateRequestNamesOnlyAsManyPeersAsFitTheAgentsBodyBound() {
        // names of 200 characters: a thousand addresses are 200 KB, more than an agent reads
        String prefix = "n".repeat(196);
        FakeFleet fleet = new FakeFleet(prefix, 1000, 2);
        StringWriter progress = new StringWriter();
        GateRun.Result r = fleet.run(Duration.ofSeconds(30), progress);
        assertThat(fleet.largestBody.get(PreflightWire.STATE)).isLessThanOrEqualTo(NodeStates.MAX_BODY);
        assertThat(NodeStates.peers(fleet.nodes)).hasSizeBetween(300, 330).containsExactlyElementsOf(
                fleet.nodes.subList(0, NodeStates.peers(fleet.nodes).size()).stream().map(NodeSet.Node::address).toList());
        assertThat(r.verdicts().excluded()).as(progress.toString()).isEmpty();
        // short names: all of them, up to the 1024 the agents take
        FakeFleet small = new FakeFleet("g", 1100, 2);
        assertThat(NodeStates.peers(small.nodes)).hasSize(GateRun.MAX_STATE_PEERS);
    }

    @Test
    void windowsAreMatchedByTheNameTheAgentGoesByAmongItsPeers() {
        // agents that share a host (the test bed's, containers) but each go by its own probe.node_name,
        // probing each other at addresses the set does not list: their windows name the peers by node
        FakeFleet fleet = new FakeFleet("gpu", 6, 2);
        fleet.oneHost = "(none)";
        StringWriter progress = new StringWriter();
        GateRun.Result r = new GateRun(fleet.nodes, new GateRun.Settings(FakeFleet.settings(Duration.ofSeconds(20)).key(), false, false,
                false, Duration.ofMillis(200), 65_536, Policy.defaults(), Duration.ofSeconds(20)), new PrintWriter(progress), fleet,
                Clock.systemUTC()).run();
        assertThat(progress.toString()).doesNotContain("one agent under several names");
        // the pingmesh windows alone (no round, no bandwidth): each node's windows of 100 probes to the next two
        assertThat(r.verdicts().links()).as(progress.toString()).hasSize(6 + 6)
                .allSatisfy(l -> assertThat(l.verdict()).isEqualTo(Verdict.PASS));
        assertThat(r.verdicts().excluded()).isEmpty();

        // agents that go by their full host names, listed by their short ones (a scheduler's): each is its node's,
        // and their windows, naming the peers in full, are matched all the same
        fleet.agentName = n -> n + ".cluster.local";
        StringWriter full = new StringWriter();
        GateRun.Result f = new GateRun(fleet.nodes, new GateRun.Settings(FakeFleet.settings(Duration.ofSeconds(20)).key(), false, false,
                false, Duration.ofMillis(200), 65_536, Policy.defaults(), Duration.ofSeconds(20)), new PrintWriter(full), fleet,
                Clock.systemUTC()).run();
        assertThat(f.verdicts().links()).as(full.toString()).hasSize(6 + 6)
                .allSatisfy(l -> assertThat(l.verdict()).isEqualTo(Verdict.PASS));
        assertThat(f.verdicts().nodes()).allSatisfy(n -> assertThat(n.verdict()).isEqualTo(Verdict.PASS));

        // agents that all answer under one name (one agent at every address, or misconfigured node names): none is
        // taken for a node it is not, and nothing it said counts for that node
        fleet.agentName = n -> "gpu-shared";
        StringWriter shared = new StringWriter();
        GateRun.Result s = new GateRun(fleet.nodes, new GateRun.Settings(FakeFleet.settings(Duration.ofSeconds(20)).key(), false, false,
                false, Duration.ofMillis(200), 65_536, Policy.defaults(), Duration.ofSeconds(20)), new PrintWriter(shared), fleet,
                Clock.systemUTC()).run();
        assertThat(shared.toString()).contains("state: 0 of 6 agents answered, 6 unknown (gpu0001: the agent answering at gpu0001:9530 is"
                + " node gpu-shared's, not gpu0001's: a relay, or a node list that points at the wrong address");
        assertThat(s.verdicts().links()).as(shared.toString()).isEmpty();
        assertThat(s.verdicts().nodes()).allSatisfy(n -> {
            assertThat(n.verdict()).isEqualTo(Verdict.UNKNOWN);
            assertThat(n.evidence().state()).isEqualTo(NodeInput.State.OTHER_AGENT);
        });
    }

    @Test
    void probeCountsNoAgentMakesAreDroppedNotSummedIntoAnOverflow() {
        // one agent's windows claim more probes than a long holds in sum (two sizes to one peer), a
        // negative count and a fraction: the gate drops those windows and judges on the others
        FakeFleet fleet = new FakeFleet("gpu", 6, 2);
        String now = Instant.now().toString();
        fleet.override.put("gpu0001" + PreflightWire.STATE, body -> "{\"node\":\"gpu0001\",\"host\":\"gpu0001\",\"collected_at\":\"" + now
                + "\",\"collection_interval_seconds\":10.0,\"findings\":[],\"probes\":["
                + "{\"peer\":\"gpu0002\",\"peer_address\":\"gpu0002:9530\",\"transport\":\"udp\",\"size\":64,\"sent\":" + Long.MAX_VALUE
                + ",\"lost\":0,\"p50_seconds\":2e-5,\"hold_p50_seconds\":0.5},"
                + "{\"peer\":\"gpu0002\",\"peer_address\":\"gpu0002:9530\",\"transport\":\"udp\",\"size\":4096,\"sent\":" + Long.MAX_VALUE
                + ",\"lost\":0,\"p50_seconds\":2e-5,\"hold_p50_seconds\":0.5},"
                + "{\"peer\":\"gpu0003\",\"peer_address\":\"gpu0003:9530\",\"transport\":\"udp\",\"size\":64,\"sent\":-5,\"lost\":0},"
                + "{\"peer\":\"gpu0003\",\"peer_address\":\"gpu0003:9530\",\"transport\":\"udp\",\"size\":4096,\"sent\":100.5,\"lost\":0}]}");
        StringWriter progress = new StringWriter();
        GateRun.Result r = fleet.run(Duration.ofSeconds(20), progress);
        assertThat(r.verdicts().excluded()).as(progress.toString()).isEmpty();
        assertThat(r.verdicts().unknown()).isEmpty();
        // the other agents' windows still make links; none from gpu0001's claims
        assertThat(r.verdicts().links()).isNotEmpty().allSatisfy(l -> assertThat(l.verdict()).isEqualTo(Verdict.PASS));
        assertThat(r.verdicts().nodes()).filteredOn(n -> n.node().equals("gpu0002")).singleElement()
                .satisfies(n -> assertThat(n.reasons()).isEmpty());
    }

    @Test
    void aStaleCollectionMakesItsNodeUnknownWithHowOld() {
        FakeFleet fleet = new FakeFleet("gpu", 6, 2);
        StringWriter progress = new StringWriter();
        // three times the interval of 10 s the agents say, and a little more
        fleet.collectedAt(Instant.now().minusSeconds(45));
        GateRun.Result r = fleet.run(Duration.ofSeconds(20), progress);
        assertThat(r.verdicts().unknown()).hasSize(6);
        NodeVerdict n = r.verdicts().nodes().get(0);
        assertThat(n.evidence().state()).isEqualTo(NodeInput.State.STALE);
        assertThat(n.reasons()).singleElement().asString().startsWith("gpu0001: its collection is stale (collected at ")
                .contains(" ago, more than 3 x its collection interval of 10 s)").contains("check the agent's log and its /readyz");
    }

    @Test
    void agentsThatDoNotAnswerHoldNoOtherAgentsStateRequestBack() {
        // 70 of 100 nodes down (their requests hang until the phase ends), listed first: the 30 up are
        // asked at once all the same, not after the others' requests gave up
        FakeFleet fleet = new FakeFleet("gpu", 100, 0);
        for (int i = 0; i < 70; i++) {
            fleet.override.put(fleet.nodes.get(i).name() + PreflightWire.STATE, body -> {
                try {
                    Thread.sleep(60_000);
                    return new IOException("no answer");
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return new IOException("interrupted");
                }
            });
        }
        StringWriter progress = new StringWriter();
        GateRun.Result r = new GateRun(fleet.nodes, new GateRun.Settings(FakeFleet.settings(Duration.ofSeconds(6)).key(), false, false,
                false, Duration.ofMillis(200), 65_536, Policy.defaults(), Duration.ofSeconds(6)), new PrintWriter(progress), fleet,
                Clock.systemUTC()).run();
        assertThat(r.verdicts().unknown()).as(progress.toString()).hasSize(70)
                .containsExactlyElementsOf(fleet.nodes.subList(0, 70).stream().map(NodeSet.Node::name).toList());
        assertThat(r.phases().get(0).done()).isEqualTo(30);
    }

    @Test
    void aCollectionIsAsOldAsItWasWhenItsAgentAnsweredNotAfterTheLaterPhases() {
        // collected 25 s before the state request (within 3 x 10 s); the probe round then takes 20 s by this
        // clock (a fleet whose agents needed several attempts): the collection was not stale when it was told
        FakeFleet fleet = new FakeFleet("gpu", 6, 0).collectedAt(Instant.now().minusSeconds(25));
        AtomicLong shift = new AtomicLong();
        Clock clock = new Clock() {
            @Override
            public ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return Instant.now().plusSeconds(shift.get());
            }
        };
        for (NodeSet.Node n : fleet.nodes) {
            fleet.override.put(n.name() + PreflightWire.PROBE, body -> {
                shift.compareAndSet(0, 20);
                return null;
            });
        }
        StringWriter progress = new StringWriter();
        GateRun.Result r = new GateRun(fleet.nodes, new GateRun.Settings(FakeFleet.settings(Duration.ofSeconds(20)).key(), false, true,
                false, Duration.ofMillis(200), 65_536, Policy.defaults(), Duration.ofSeconds(20)), new PrintWriter(progress), fleet, clock)
                .run();
        assertThat(shift.get()).isEqualTo(20);
        assertThat(r.verdicts().nodes()).as(progress.toString()).allSatisfy(n -> assertThat(n.verdict()).as(n.toString())
                .isEqualTo(Verdict.PASS));
    }

    @Test
    void aCollectionWithinThreeIntervalsIsNotStaleAndWithoutAnIntervalFiveMinutesHold() {
        StateAnswer fresh = new StateAnswer("a", "a", "2025-06-01T10:00:00Z", 10.0, java.util.List.of(), java.util.List.of());
        assertThat(NodeStates.stale(fresh, java.time.Instant.parse("2025-06-01T10:00:29Z"))).isNull();
        assertThat(NodeStates.stale(fresh, java.time.Instant.parse("2025-06-01T10:00:31Z"))).contains("31 s ago");
        StateAnswer unsaid = new StateAnswer("a", "a", "2025-06-01T10:00:00Z", null, java.util.List.of(), java.util.List.of());
        assertThat(NodeStates.stale(unsaid, java.time.Instant.parse("2025-06-01T10:04:59Z"))).isNull();
        assertThat(NodeStates.stale(unsaid, java.time.Instant.parse("2025-06-01T10:12:00Z"))).isEqualTo(
                "collected at 2025-06-01T10:00:00Z, 12 min ago, more than 5 min");
        StateAnswer garbled = new StateAnswer("a", "a", "yesterday\n", null, java.util.List.of(), java.util.List.of());
        assertThat(NodeStates.stale(garbled, java.time.Instant.now())).isEqualTo("its answer's collected_at 'yesterday' is not a time");
    }
}
