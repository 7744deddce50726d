package io.fabricd.gate;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.gate.wire.PreflightWire;
import io.fabricd.preflight.LinkVerdict;
import io.fabricd.preflight.NodeInput;
import io.fabricd.preflight.NodeVerdict;
import io.fabricd.preflight.Verdict;
import io.fabricd.probes.peers.EndpointClient;
import java.io.StringWriter;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What each answer of an agent means for its node and links ({@link FakeFleet}: no network): every
 * status other than 200 said as what it is and what to do, a busy agent asked again after its
 * Retry-After within the budget, a bandwidth test that failed once the peer accepted it held against
 * the link while one that never started is not.
 */
class PreflightAnswersTest {
    private static EndpointClient.Refused answered(String node, int status, String text, long retryAfter) {
        return new EndpointClient.Refused(node + ":9530 answered " + status + ": " + text, status, text, retryAfter);
    }

    @Test
    void eachStatusIsSaidAsWhatItIs() {
        FakeFleet fleet = new FakeFleet("gpu", 10, 2);
        fleet.override.put("gpu0001" + PreflightWire.STATE, p -> answered("gpu0001", 401, "preflight requests need a valid X (bad signature)", 0));
        fleet.override.put("gpu0002" + PreflightWire.STATE, p -> answered("gpu0002", 404, "not found", 0));
        fleet.override.put("gpu0003" + PreflightWire.STATE, p -> answered("gpu0003", 503, "first collection not finished: ask again in a few"
                + " seconds", 0));
        AtomicInteger asked = new AtomicInteger();
        fleet.override.put("gpu0004" + PreflightWire.STATE, p -> asked.incrementAndGet() == 1 ? answered("gpu0004", 429, "busy", 1) : null);
        fleet.override.put("gpu0005" + PreflightWire.STATE, p -> answered("gpu0005", 429, "busy for an hour", 3600));
        fleet.override.put("gpu0006" + PreflightWire.STATE, p -> answered("gpu0006", 413, "a preflight request is at most 65536 bytes", 0));
        fleet.override.put("gpu0007" + PreflightWire.STATE, p -> answered("gpu0007", 500, "NullPointerException", 0));
        StringWriter progress = new StringWriter();
        GateRun.Result r = fleet.run(Duration.ofSeconds(30), progress);
        Map<String, NodeVerdict> v = new LinkedHashMap<>();
        r.verdicts().nodes().forEach(n -> v.put(n.node(), n));

        assertThat(v.get("gpu0001").evidence().state()).isEqualTo(NodeInput.State.REFUSED);
        assertThat(v.get("gpu0001").reasons().get(0)).startsWith("gpu0001: agent refused the probe key (gpu0001:9530 answered 401: "
                + "preflight requests need a valid X (bad signature)): check that the key is the fabric's, that both clocks are right");
        assertThat(v.get("gpu0002").reasons().get(0)).isEqualTo("gpu0002: agent could not answer (gpu0002:9530 answered 404 to "
                + "/api/v1/preflight/state: an older fabricd without preflight: upgrade it to this release), then rerun");
        assertThat(v.get("gpu0003").reasons().get(0)).isEqualTo("gpu0003: agent could not answer (gpu0003:9530 answered 503: first "
                + "collection not finished: ask again in a few seconds), then rerun");
        // asked again after its Retry-After of 1 s: answered
        assertThat(asked.get()).isEqualTo(2);
        assertThat(v.get("gpu0004").verdict()).isEqualTo(Verdict.PASS);
        assertThat(v.get("gpu0005").reasons().get(0)).contains("gpu0005:9530 is busy (429: busy for an hour); asking again after 3600 s "
                + "would pass the time budget (--timeout)");
        assertThat(v.get("gpu0006").reasons().get(0)).contains("answered 413: the request was larger than the agent takes: a preflight "
                + "request is at most 65536 bytes: upgrade the agent and this command to one release");
        assertThat(v.get("gpu0007").reasons().get(0)).contains("answered 500: it failed answering: NullPointerException: see its log");
        for (String n : new String[] {"gpu0002", "gpu0003", "gpu0005", "gpu0006", "gpu0007"}) {
            assertThat(v.get(n).evidence().state()).as(n).isEqualTo(NodeInput.State.UNAVAILABLE);
            assertThat(v.get(n).reasons().get(0)).as(n).doesNotContain("probe key");
        }
        assertThat(r.verdicts().unknown()).containsExactly("gpu0001", "gpu0002", "gpu0003", "gpu0005", "gpu0006", "gpu0007");
    }

    @Test
    void aBandwidthTestThatFailedOnceAcceptedIsABadLinkOneThatDidNotStartIsNotMeasured() {
        FakeFleet fleet = new FakeFleet("gpu", 8, 2);
        fleet.override.put("gpu0003" + PreflightWire.BANDWIDTH, body -> !body.contains("gpu0004:9530") ? null : answered("gpu0003", 502, "the bandwidth test to gpu0004:9530 failed after"
                + " the peer accepted it: bandwidth test with gpu0004:9530 (mlx5_0) failed: the queue pairs did not connect", 0));
        fleet.override.put("gpu0006" + PreflightWire.BANDWIDTH, body -> !body.contains("gpu0007:9530") ? null : answered("gpu0006", 503, "no bandwidth tests from this agent: no verbs", 0));
        StringWriter progress = new StringWriter();
        GateRun.Result r = fleet.run(Duration.ofSeconds(30), progress);
        LinkVerdict failed = link(r, "gpu0003", "gpu0004");
        assertThat(failed.verdict()).as(failed.toString()).isEqualTo(Verdict.EXCLUDE);
        assertThat(failed.badLink()).isTrue();
        assertThat(failed.reasons()).singleElement().asString().startsWith("link gpu0003<->gpu0004: bandwidth test failed after the peer "
                + "accepted it (gpu0003:9530 answered 502: the bandwidth test to gpu0004:9530 failed after the peer accepted it");
        // the other way round measured it: judged on that, nothing held against it for the test that did not start
        LinkVerdict refused = link(r, "gpu0006", "gpu0007");
        assertThat(refused.verdict()).isEqualTo(Verdict.PASS);
        assertThat(refused.evidence().bandwidthRatio()).isEqualTo(0.9);
        assertThat(refused.evidence().rate()).isEqualTo(new LinkVerdict.Rate(9e10, 1e11));
        assertThat(progress.toString()).contains("8 links both ways, 14 tests measured, 1 failed once the peer accepted them, 1 not measured");
        assertThat(r.verdicts().excluded()).isEmpty();
    }

    private static LinkVerdict link(GateRun.Result r, String a, String b) {
        return r.verdicts().links().stream().filter(l -> l.a().equals(a) && l.b().equals(b)).findFirst().orElseThrow();
    }
}
