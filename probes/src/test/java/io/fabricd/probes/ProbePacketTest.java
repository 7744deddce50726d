package io.fabricd.probes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabricd.probes.peers.EndpointAuth;
import io.fabricd.probes.peers.EndpointClient;
import io.fabricd.probes.responder.RateLimiter;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

public class ProbePacketTest {
    public static final ProbeKey KEY = new ProbeKey("0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8));
    public static final ProbeKey OTHER = new ProbeKey("fedcba9876543210fedcba9876543210".getBytes(StandardCharsets.UTF_8));

    @ParameterizedTest
    @ValueSource(ints = {60, 64, 1024, 4096, 9000, 65507})
    void roundTrip(int size) throws Exception {
        byte[] b = new byte[size];
        new ProbePacket(ProbePacket.RESPONSE, 42, -7, 123456789L, 31337, size).encode(b, KEY);
        assertThat(ProbePacket.decode(b, size, KEY)).isEqualTo(new ProbePacket(ProbePacket.RESPONSE, 42, -7, 123456789L, 31337, size));
    }

    @Test
    void rejectsForgedTruncatedAndForeignPackets() {
        byte[] b = new byte[128];
        new ProbePacket(ProbePacket.REQUEST, 1, 2, 3, 0, 128).encode(b, KEY);
        assertThatThrownBy(() -> ProbePacket.decode(b, 128, OTHER)).isInstanceOfSatisfying(ProbePacket.RejectedException.class,
                e -> assertThat(e.reason()).isEqualTo(ProbePacket.Reject.UNAUTHENTICATED));
        b[20] ^= 1; // a changed session
        assertThatThrownBy(() -> ProbePacket.decode(b, 128, KEY)).isInstanceOfSatisfying(ProbePacket.RejectedException.class,
                e -> assertThat(e.reason()).isEqualTo(ProbePacket.Reject.UNAUTHENTICATED));
        b[20] ^= 1;
        assertThatThrownBy(() -> ProbePacket.decode(b, 100, KEY)).isInstanceOfSatisfying(ProbePacket.RejectedException.class,
                e -> assertThat(e.reason()).isEqualTo(ProbePacket.Reject.MALFORMED)); // size field says 128
        assertThatThrownBy(() -> ProbePacket.decode(b, 59, KEY)).isInstanceOf(ProbePacket.RejectedException.class);
        assertThatThrownBy(() -> new ProbePacket(ProbePacket.REQUEST, 1, 2, 3, 0, 59).encode(new byte[64], KEY))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** 10 000 seeded mutations of a valid packet: every one is accepted unchanged or rejected, nothing else. */
    @Test
    void seededMutationsAreRejectedCleanly() throws Exception {
        Random rnd = new Random(20261129L);
        byte[] valid = new byte[256];
        new ProbePacket(ProbePacket.REQUEST, 9, 8, 7, 0, 256).encode(valid, KEY);
        int accepted = 0;
        for (int i = 0; i < 10_000; i++) {
            byte[] b = valid.clone();
            int len = rnd.nextInt(4) == 0 ? rnd.nextInt(300) : 256;
            byte[] in = new byte[Math.max(len, 1)];
            System.arraycopy(b, 0, in, 0, Math.min(len, 256));
            int flips = 1 + rnd.nextInt(4);
            for (int f = 0; f < flips && len > 0; f++) {
                in[rnd.nextInt(len)] ^= (byte) (1 + rnd.nextInt(255));
            }
            try {
                ProbePacket.decode(in, len, KEY);
                accepted++;
            } catch (ProbePacket.RejectedException e) {
                assertThat(e.reason()).isNotNull();
            }
        }
        assertThat(accepted).isZero(); // every mutation changed an authenticated byte or the length
    }

    @Test
    void endpointRequestsAreBoundToMethodPathTheReceivingAgentTimeAndBodyAndAcceptedOnce() {
        String path = EndpointClient.PATH;
        String idA = EndpointAuth.agentId(KEY, "node-a");
        assertThat(idA).matches("[0-9a-f]{32}").isNotEqualTo(EndpointAuth.agentId(KEY, "node-b"))
                .isNotEqualTo(EndpointAuth.agentId(OTHER, "node-a")).doesNotContain("node");
        EndpointAuth client = new EndpointAuth(KEY);
        EndpointAuth.Request r = client.request("GET", path, idA, null, 1_000_000);
        EndpointAuth responder = new EndpointAuth(KEY, () -> "node-a");
        EndpointAuth agentB = new EndpointAuth(KEY, () -> "node-b");
        assertThat(responder.agentId()).isEqualTo(idA);
        // another agent (whatever Host the request names), path, method or time: refused, and the nonce not spent
        assertThat(agentB.check(r.header(), "GET", path, 1_000_000)).isEqualTo(EndpointAuth.Verdict.WRONG_AGENT);
        assertThat(new EndpointAuth(KEY).check(r.header(), "GET", path, 1_000_000)).isEqualTo(EndpointAuth.Verdict.WRONG_AGENT);
        assertThat(responder.check(r.header(), "GET", "/api/v1/snapshot", 1_000_000)).isEqualTo(EndpointAuth.Verdict.BAD_TAG);
        assertThat(responder.check(r.header(), "HEAD", path, 1_000_000)).isEqualTo(EndpointAuth.Verdict.BAD_TAG);
        assertThat(responder.check(r.header(), "GET", path, 1_000_000 + EndpointAuth.WINDOW_SECONDS + 1))
                .isEqualTo(EndpointAuth.Verdict.STALE);
        assertThat(new EndpointAuth(OTHER, () -> "node-a").check(r.header(), "GET", path, 1_000_000)).isEqualTo(EndpointAuth.Verdict.BAD_TAG);
        // the target id is signed: naming A's id in B's place breaks the tag
        String[] f = r.header().split(":");
        f[3] = agentB.agentId();
        assertThat(agentB.check(String.join(":", f), "GET", path, 1_000_000)).isEqualTo(EndpointAuth.Verdict.BAD_TAG);
        // a requester that does not know the id yet: told (WRONG_AGENT), not accepted
        assertThat(responder.check(client.request("GET", path, EndpointAuth.UNKNOWN_AGENT, null, 1_000_000).header(), "GET", path,
                1_000_000)).isEqualTo(EndpointAuth.Verdict.WRONG_AGENT);
        // the real one: once
        assertThat(responder.check(r.header(), "GET", path, 1_000_100)).isEqualTo(EndpointAuth.Verdict.OK);
        assertThat(responder.check(r.header(), "GET", path, 1_000_101)).isEqualTo(EndpointAuth.Verdict.REPLAYED);
        assertThat(EndpointAuth.checkBody(r.header(), null)).isEqualTo(EndpointAuth.Verdict.OK);
        assertThat(EndpointAuth.checkBody(r.header(), new byte[1])).isEqualTo(EndpointAuth.Verdict.BODY_MISMATCH);
        // a new request gets a new nonce
        EndpointAuth.Request r2 = client.request("GET", path, idA, null, 1_000_000);
        assertThat(r2.nonce()).isNotEqualTo(r.nonce());
        assertThat(responder.check(r2.header(), "GET", path, 1_000_000)).isEqualTo(EndpointAuth.Verdict.OK);
        for (String bad : new String[] {null, ""}) {
            assertThat(responder.check(bad, "GET", path, 1_000_000)).isEqualTo(EndpointAuth.Verdict.MISSING);
        }
        // version 2 (bound to the Host the sender chose) and 3 (its answers name no agent): refused as an older fabricd's
        assertThat(responder.check("2:1000000:" + "0".repeat(32) + ":" + "0".repeat(32), "GET", path, 1_000_000))
                .isEqualTo(EndpointAuth.Verdict.OLD_VERSION);
        assertThat(responder.check(r.header().replaceFirst("^4:", "3:"), "GET", path, 1_000_000)).isEqualTo(EndpointAuth.Verdict.OLD_VERSION);
        String t = r.header();
        for (String bad : new String[] {"x", "1:zz", ":00", "1000000:", t.replaceFirst("^4:", "1:"), t + "0", t.toUpperCase(),
            t.replaceFirst(":\\d+:", ":x:"), t.replaceFirst(":\\d+:", ":99999999999999999999:"), t.replace(idA, "node-a"),
            "4:1000000:" + "0".repeat(32) + ":-:" + "0".repeat(64) + ":" + "0".repeat(31)}) {
            assertThat(responder.check(bad, "GET", path, 1_000_000)).as(bad).isEqualTo(EndpointAuth.Verdict.MALFORMED);
        }
        assertThatThrownBy(() -> new ProbeKey(new byte[8])).hasMessageContaining("at least 16 bytes");
    }

    @Test
    void aBodyIsSignedByItsDigestAndCheckedOnceRead() {
        byte[] body = "{\"id\":\"x\"}".getBytes(StandardCharsets.UTF_8);
        EndpointAuth responder = new EndpointAuth(KEY, () -> "node-a");
        EndpointAuth.Request r = new EndpointAuth(KEY).request("POST", "/api/v1/bandwidth/stop", responder.agentId(), body, 1_000_000);
        assertThat(responder.check(r.header(), "POST", "/api/v1/bandwidth/stop", 1_000_000)).isEqualTo(EndpointAuth.Verdict.OK);
        assertThat(EndpointAuth.checkBody(r.header(), body)).isEqualTo(EndpointAuth.Verdict.OK);
        assertThat(EndpointAuth.checkBody(r.header(), "{\"id\":\"y\"}".getBytes(StandardCharsets.UTF_8)))
                .isEqualTo(EndpointAuth.Verdict.BODY_MISMATCH);
        assertThat(EndpointAuth.checkBody(r.header(), null)).isEqualTo(EndpointAuth.Verdict.BODY_MISMATCH);
        // the digest is under the tag: another digest in the header breaks it
        String[] f = r.header().split(":");
        f[4] = "0".repeat(64);
        assertThat(responder.check(String.join(":", f), "POST", "/api/v1/bandwidth/stop", 1_000_000)).isEqualTo(EndpointAuth.Verdict.BAD_TAG);
    }

    @Test
    void anAnswerIsBoundToItsRequestItsBodyAndTheAgentThatMadeIt() {
        EndpointAuth a = new EndpointAuth(KEY, () -> "node-a");
        EndpointAuth requester = new EndpointAuth(KEY);
        String idA = a.agentId();
        byte[] body = "{\"host\":\"a\"}".getBytes(StandardCharsets.UTF_8);
        String h = a.answerHeader("00".repeat(16), body);
        assertThat(h).startsWith("4:node-a:");
        assertThat(requester.answerer("00".repeat(16), idA, body, h)).isEqualTo("node-a");
        assertThat(requester.answerer("01".repeat(16), idA, body, h)).isNull(); // an old answer to another request
        assertThat(requester.answerer("00".repeat(16), idA, "{\"host\":\"b\"}".getBytes(StandardCharsets.UTF_8), h)).isNull();
        assertThat(new EndpointAuth(OTHER).answerer("00".repeat(16), idA, body, h)).isNull();
        // the answer of another agent than the one the request was signed for (a relay to it): not taken
        String idB = new EndpointAuth(KEY, () -> "node-b").agentId();
        assertThat(requester.answerer("00".repeat(16), idB, body, h)).isNull();
        assertThat(requester.answerer("00".repeat(16), EndpointAuth.UNKNOWN_AGENT, body, h)).isNull();
        // nor one that names another agent than the one whose id it was signed with
        String[] f = h.split(":");
        assertThat(requester.answerer("00".repeat(16), idA, body, f[0] + ":node-b:" + f[2])).isNull();
        for (String bad : new String[] {null, "zz", f[2], "3:node-a:" + f[2], "4::" + f[2], "4:node-a:" + f[2] + ":x", "4:%zz:" + f[2],
            "4:" + "a".repeat(5000) + ":" + f[2]}) {
            assertThat(requester.answerer("00".repeat(16), idA, body, bad)).as(String.valueOf(bad)).isNull();
        }
        // a name with any characters goes out URL-encoded and comes back whole
        EndpointAuth odd = new EndpointAuth(KEY, () -> "gpu 07:a/ü");
        String oh = odd.answerHeader("00".repeat(16), body);
        assertThat(oh.split(":")).hasSize(3);
        assertThat(requester.answerer("00".repeat(16), odd.agentId(), body, oh)).isEqualTo("gpu 07:a/ü");
        assertThatThrownBy(() -> requester.answerHeader("00".repeat(16), body)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theNonceMemoryIsBounded() {
        EndpointAuth client = new EndpointAuth(KEY);
        EndpointAuth responder = new EndpointAuth(KEY, () -> "h");
        String id = responder.agentId();
        EndpointAuth.Request first = client.request("GET", "/p", id, null, 1_000_000);
        assertThat(responder.check(first.header(), "GET", "/p", 1_000_000)).isEqualTo(EndpointAuth.Verdict.OK);
        for (int i = 0; i < EndpointAuth.MAX_NONCES; i++) {
            assertThat(responder.check(client.request("GET", "/p", id, null, 1_000_000).header(), "GET", "/p", 1_000_000))
                    .isEqualTo(EndpointAuth.Verdict.OK);
        }
        // the oldest was forgotten to stay within the bound; a request past the window is stale anyway
        assertThat(responder.check(first.header(), "GET", "/p", 1_000_000)).isEqualTo(EndpointAuth.Verdict.OK);
    }

    @Test
    void rateLimiter() {
        long[] now = {0};
        RateLimiter r = new RateLimiter(100, 10, () -> now[0]);
        int ok = 0;
        for (int i = 0; i < 50; i++) {
            ok += r.tryAcquire() ? 1 : 0;
        }
        assertThat(ok).isEqualTo(10); // the burst
        now[0] += 1_000_000_000L; // one second: 100 more, capped at the burst
        ok = 0;
        for (int i = 0; i < 50; i++) {
            ok += r.tryAcquire() ? 1 : 0;
        }
        assertThat(ok).isEqualTo(10);
        now[0] += 50_000_000L; // 50 ms: 5 tokens
        ok = 0;
        for (int i = 0; i < 50; i++) {
            ok += r.tryAcquire() ? 1 : 0;
        }
        assertThat(ok).isEqualTo(5);
    }

    @Test
    void rateLimiterChargesEventsAtTheirArrival() {
        long[] now = {0};
        RateLimiter r = new RateLimiter(1000, 10, () -> now[0]);
        now[0] = 1_000_000_000L; // handled a second late, as by a responder that was held up
        // 250 requests that arrived 2 ms apart (500/s, within the rate) from 0.5 s on: every one passes
        int ok = 0;
        for (int i = 0; i < 250; i++) {
            ok += r.tryAcquire(500_000_000L + i * 2_000_000L) ? 1 : 0;
        }
        assertThat(ok).isEqualTo(250);
        // a flood that arrived 10 us apart over 10 ms: the burst and what 10 ms at 1000/s refill
        ok = 0;
        long from = 1_500_000_000L;
        for (int i = 0; i < 1000; i++) {
            ok += r.tryAcquire(from + i * 10_000L) ? 1 : 0;
        }
        assertThat(ok).isBetween(19, 20);
        // time never runs back: an arrival before the last one refills nothing
        assertThat(r.tryAcquire(0)).isFalse();
    }
}
