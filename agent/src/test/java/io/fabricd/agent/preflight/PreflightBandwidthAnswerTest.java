package io.fabricd.agent.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.probes.bandwidth.BandwidthClient;
import io.fabricd.probes.bandwidth.BandwidthSchedule;
import io.fabricd.probes.bandwidth.Ceiling;
import io.fabricd.probes.peers.EndpointClient;
import io.fabricd.probes.verbs.VerbsPorts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import org.junit.jupiter.api.Test;

/**
 * An agent's answer to a bandwidth test that did not give a result: 502 only for a test the peer
 * accepted that then failed (the link's failure), 503 for one that did not start (the peer refused,
 * could not be asked), 429 for a busy peer.
 */
class PreflightBandwidthAnswerTest {
    private static Answer answer(BandwidthSchedule.Runner runner) throws Exception {
        Ceiling.Local none = Ceiling.Local.of(null);
        PreflightBandwidth bw = new PreflightBandwidth(null, runner, () -> new VerbsPorts.Port("mlx5_0", 1, 3, "Ethernet"), () -> none,
                new Semaphore(1), () -> false, () -> "gpu01", Duration.ofSeconds(30));
        return bw.answer("{\"peer\":\"10.0.0.2:9530\",\"duration_ms\":100}".getBytes(StandardCharsets.UTF_8)).get();
    }

    private static Answer asked(Duration idle, long durationMs) throws Exception {
        Ceiling.Local none = Ceiling.Local.of(null);
        PreflightBandwidth bw = new PreflightBandwidth(null, (peer, port, local, o) -> {
            throw new IOException("not reached");
        }, () -> new VerbsPorts.Port("mlx5_0", 1, 3, "Ethernet"), () -> none, new Semaphore(1), () -> false, () -> "gpu01", idle);
        return bw.answer(("{\"peer\":\"10.0.0.2:9530\",\"duration_ms\":" + durationMs + "}").getBytes(StandardCharsets.UTF_8)).get();
    }

    @Test
    void aTestLongerThanTheConnectionIsKeptOpenIsRefusedWithTheReason() throws Exception {
        // the default idle timeout (30 s) takes tests up to 20 s, the command's longest
        assertThat(asked(Duration.ofSeconds(30), 20_000).status()).isEqualTo(503);
        Answer tooLong = asked(Duration.ofSeconds(30), 20_001);
        assertThat(tooLong.status()).isEqualTo(400);
        assertThat(body(tooLong)).isEqualTo("duration_ms must be 1 to 20000\n");
        // an agent that closes idle connections after 12 s answers a test of at most 7 s (5 s of setup)
        Answer shortIdle = asked(Duration.ofSeconds(12), 8_000);
        assertThat(shortIdle.status()).isEqualTo(400);
        assertThat(body(shortIdle)).startsWith("duration_ms must be 1 to 7000: this agent's http.idle_timeout");
        assertThat(asked(Duration.ofSeconds(12), 7_000).status()).isEqualTo(503);
        Answer tooShort = asked(Duration.ofSeconds(4), 1_000);
        assertThat(tooShort.status()).isEqualTo(400);
        assertThat(body(tooShort)).contains("http.idle_timeout is too short for a bandwidth test");
    }

    @Test
    void aRequestOfANewerWireVersionIsRefusedSayingWhatToUpgrade() throws Exception {
        PreflightBandwidth bw = new PreflightBandwidth(null, (peer, port, local, o) -> {
            throw new IOException("not reached");
        }, () -> null, () -> Ceiling.Local.of(null), new Semaphore(1), () -> false, () -> "gpu01", Duration.ofSeconds(30));
        Answer newer = bw.answer("{\"version\":2,\"peer\":\"10.0.0.2:9530\"}".getBytes(StandardCharsets.UTF_8)).get();
        assertThat(newer.status()).isEqualTo(400);
        assertThat(body(newer)).isEqualTo("the request is of preflight wire version 2, this agent reads up to 1: upgrade the agent to the "
                + "gate's release\n");
        // this build's version and none (the build before) are read
        assertThat(bw.answer("{\"version\":1,\"peer\":\"10.0.0.2:9530\"}".getBytes(StandardCharsets.UTF_8)).get().status()).isEqualTo(503);
    }

    private static String body(Answer a) {
        return new String(a.body(), StandardCharsets.UTF_8);
    }

    @Test
    void failedAfterTheAcceptanceIs502AndNotStartedIs503() throws Exception {
        Answer failed = answer((peer, port, local, o) -> {
            throw new BandwidthClient.Failed("bandwidth test with 10.0.0.2:9530 (mlx5_0) failed: the queue pairs did not connect", null);
        });
        assertThat(failed.status()).isEqualTo(502);
        assertThat(body(failed)).isEqualTo("the bandwidth test to 10.0.0.2:9530 failed after the peer accepted it: bandwidth test with "
                + "10.0.0.2:9530 (mlx5_0) failed: the queue pairs did not connect\n");

        Answer refused = answer((peer, port, local, o) -> {
            throw new EndpointClient.Refused("10.0.0.2:9530 answered 503: no verbs", 503, "no verbs", 0);
        });
        assertThat(refused.status()).isEqualTo(503);
        assertThat(body(refused)).isEqualTo("the bandwidth test to 10.0.0.2:9530 did not start: 10.0.0.2:9530 answered 503: no verbs\n");

        Answer unreachable = answer((peer, port, local, o) -> {
            throw new IOException("cannot reach 10.0.0.2:9530: connection refused (no agent listening there?)");
        });
        assertThat(unreachable.status()).isEqualTo(503);

        Answer busy = answer((peer, port, local, o) -> {
            throw new EndpointClient.Refused("10.0.0.2:9530 answered 429: one test at a time: ask again in 7 s", 429,
                    "one test at a time: ask again in 7 s", 7);
        });
        assertThat(busy.status()).isEqualTo(429);
        assertThat(busy.retryAfterSeconds()).isEqualTo(7);
    }
}
