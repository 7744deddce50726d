package io.fabricd.agent.preflight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.fabricd.preflight.NodeVerdict;
import io.fabricd.preflight.Policy;
import io.fabricd.preflight.Verdict;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
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
        assertThat(progress.toString()).contains("state: 1000 of 1000 agents answered", "probe round: 1000 agents probed 2000 peers",
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
    void theStateRequestNamesOnlyAsManyPeersAsFitTheAgentsBodyBound() {
        // names of 200 characters: a thousand addresses are 200 KB, more than an agent reads
        String prefix = "n".repeat(196);
        FakeFleet fleet = new FakeFleet(prefix, 1000, 2);
        StringWriter progress = new StringWriter();
        GateRun.Result r = fleet.run(Duration.ofSeconds(30), progress);
        assertThat(fleet.largestBody.get(AgentAsk.STATE)).isLessThanOrEqualTo(NodeStates.MAX_BODY);
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

        // agents that answer under one name (one agent listed under several names, or misconfigured
        // node names) are told apart by the addresses they probe only: here none is the set's, so no window counts
        fleet.oneNode = "gpu-shared";
        StringWriter shared = new StringWriter();
        GateRun.Result s = new GateRun(fleet.nodes, new GateRun.Settings(FakeFleet.settings(Duration.ofSeconds(20)).key(), false, false,
                false, Duration.ofMillis(200), 65_536, Policy.defaults(), Duration.ofSeconds(20)), new PrintWriter(shared), fleet,
                Clock.systemUTC()).run();
        assertThat(shared.toString()).contains("all answered as gpu-shared: one agent under several names? their windows are matched by "
                + "address only");
        assertThat(s.verdicts().links()).as(shared.toString()).isEmpty();
    }

    @Test
    void aStaleCollectionMakesItsNodeUnknownWithHowOld() {
        FakeFleet fleet = new FakeFleet("gpu", 6, 2);
        StringWriter progress = new StringWriter();
        // three times the interval of 10 s the agents say, and a little more
        fleet.collectedAt(java.time.Instant.now().minusSeconds(45));
        GateRun.Result r = fleet.run(Duration.ofSeconds(20), progress);
        assertThat(r.verdicts().unknown()).hasSize(6);
        NodeVerdict n = r.verdicts().nodes().get(0);
        assertThat(n.evidence()).containsEntry("state", "stale");
        assertThat(n.reasons()).singleElement().asString().startsWith("gpu0001: its collection is stale (collected at ")
                .contains(" ago, more than 3 x its collection interval of 10 s)").contains("check the agent's log and its /readyz");
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
