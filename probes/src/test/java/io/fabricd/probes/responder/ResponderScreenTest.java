package io.fabricd.probes.responder;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.probes.ProbePacket;
import io.fabricd.probes.ProbePacketTest;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** What the responder decides before a packet's tag and before a socket: the screen, admission, drop counting. */
class ResponderScreenTest {
    private static byte[] request(long session, long sequence, long sentAtMillis) {
        byte[] b = new byte[64];
        new ProbePacket(ProbePacket.REQUEST, sequence, session, 1, sentAtMillis, 64).encode(b, ProbePacketTest.KEY);
        return b;
    }

    @Test
    void staleAndReplayedRequestsAreRefusedByTheirHeaderAlone() {
        ResponderStats stats = new ResponderStats();
        ResponderBudget budget = new ResponderBudget(1000, 100);
        long now = System.currentTimeMillis();
        byte[] first = request(7, 1, now);
        assertThat(ResponderAnswer.answer(first.clone(), 64, System.nanoTime(), ProbePacketTest.KEY, budget, stats)).isEqualTo(64);
        // a copy with its tag spoiled: refused as a replay, so its tag was never checked
        byte[] copy = first.clone();
        copy[63] ^= 1;
        assertThat(ResponderAnswer.screen(copy, 64, stats.replays)).isEqualTo("replayed");
        assertThat(ResponderAnswer.answer(copy, 64, System.nanoTime(), ProbePacketTest.KEY, budget, stats)).isEqualTo(-1);
        assertThat(stats.droppedCount("replayed")).isEqualTo(1);
        assertThat(stats.droppedCount("unauthenticated")).isZero();
        byte[] old = request(8, 1, now - ReplayWindow.MAX_AGE_MS - 1_000);
        old[63] ^= 1;
        assertThat(ResponderAnswer.screen(old, 64, stats.replays)).isEqualTo("stale");
        // what the screen lets through, the tag decides
        byte[] forged = request(9, 1, now);
        forged[63] ^= 1;
        assertThat(ResponderAnswer.screen(forged, 64, stats.replays)).isNull();
        assertThat(ResponderAnswer.answer(forged, 64, System.nanoTime(), ProbePacketTest.KEY, budget, stats)).isEqualTo(-1);
        assertThat(stats.droppedCount("unauthenticated")).isEqualTo(1);
        // a forgery refused is not remembered: the genuine request of that session and sequence is answered
        assertThat(ResponderAnswer.answer(request(9, 1, now), 64, System.nanoTime(), ProbePacketTest.KEY, budget, stats)).isEqualTo(64);
        byte[] response = new byte[64];
        new ProbePacket(ProbePacket.RESPONSE, 1, 10, 1, now, 64).encode(response, ProbePacketTest.KEY);
        assertThat(ResponderAnswer.screen(response, 64, stats.replays)).isEqualTo("malformed");
        assertThat(ResponderAnswer.screen(request(11, 1, now), 63, stats.replays)).isEqualTo("malformed");
    }

    @Test
    void aSourceGetsASocketForItsOwnSessionOnlyAndAtTheRate() {
        PeerAdmission a = new PeerAdmission(new RateLimiter(1, 2, () -> 0L));
        SocketAddress peer = new InetSocketAddress("127.0.0.1", 4000);
        SocketAddress other = new InetSocketAddress("127.0.0.1", 4001);
        assertThat(a.answered(peer, 1)).as("one answer").isFalse();
        assertThat(a.answered(peer, 1)).as("its session's second").isTrue();
        // copies of one session from many ports: none of them qualifies, nor the first port again
        assertThat(a.answered(other, 2)).isFalse();
        assertThat(a.answered(new InetSocketAddress("127.0.0.1", 4002), 2)).isFalse();
        assertThat(a.answered(other, 2)).isFalse();
        assertThat(a.answered(other, 2)).isFalse();
        // two sessions' first requests from one port: no session of its own twice yet
        SocketAddress third = new InetSocketAddress("127.0.0.1", 4003);
        assertThat(a.answered(third, 3)).isFalse();
        assertThat(a.answered(third, 4)).isFalse();
        assertThat(a.answered(third, 3)).isTrue();
        // the burst (2) is spent and the clock stands still: the next qualifying source waits
        SocketAddress fourth = new InetSocketAddress("127.0.0.1", 4004);
        assertThat(a.answered(fourth, 5)).isFalse();
        assertThat(a.answered(fourth, 5)).isFalse();
        assertThat(a.sessions()).isEqualTo(5);
    }

    @Test
    void dropCountersWrapAt32Bits() {
        KernelDrops d = new KernelDrops(1, true, new AtomicLong());
        long last = d.reported(0, 10);
        last = d.reported(last, 0xffff_fff0L);
        d.reported(last, 5); // wrapped
        assertThat(d.total()).isEqualTo(0x1_0000_0005L);
    }

    @Test
    void withoutLibcProcNetUdpIsReadAtMostOnceASecondWhateverAsks() {
        AtomicLong reads = new AtomicLong();
        KernelDrops d = new KernelDrops(1, false, reads);
        for (int i = 0; i < 1000; i++) {
            d.total();
        }
        assertThat(reads.get()).as("reads for 1 000 scrapes within a second (or two on a stalled machine)").isBetween(1L, 2L);
    }
}
