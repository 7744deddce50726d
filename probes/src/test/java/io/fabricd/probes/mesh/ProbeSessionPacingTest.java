package io.fabricd.probes.mesh;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.probes.ProbePacket;
import io.fabricd.probes.ProbePacketTest;
import io.fabricd.probes.ProbeResult;
import io.fabricd.probes.ProbeTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * A session's pace when its thread is held up: the probes it could not send meanwhile go out later,
 * one interval apart, never as a burst to catch up (which would queue behind each other and spend
 * the responder's rate limit).
 */
class ProbeSessionPacingTest {

    /** A target that never answers; its send of the probe numbered {@code stallAt} blocks for {@code stall}. */
    private static final class StallingTransport implements ProbeTransport {
        final List<Long> sends = new ArrayList<>();
        final int stallAt;
        final long stallNanos;

        StallingTransport(int stallAt, Duration stall) {
            this.stallAt = stallAt;
            this.stallNanos = stall.toNanos();
        }

        @Override
        public String name() {
            return "test";
        }

        @Override
        public int maxSize() {
            return ProbePacket.MAX_SIZE;
        }

        @Override
        public void send(byte[] packet, int length) {
            sends.add(System.nanoTime());
            if (sends.size() == stallAt) {
                long until = System.nanoTime() + stallNanos;
                while (System.nanoTime() - until < 0) {
                    LockSupport.parkNanos(until - System.nanoTime());
                }
            }
        }

        @Override
        public int receive(byte[] buf, long timeoutNanos) {
            if (timeoutNanos > 0) {
                LockSupport.parkNanos(timeoutNanos);
            }
            return -1;
        }

        @Override
        public void close() {
        }
    }

    @Test
    void aStallDoesNotTurnIntoABurst() throws Exception {
        Duration interval = Duration.ofMillis(5);
        StallingTransport t = new StallingTransport(5, Duration.ofMillis(200));
        ProbeResult r = new ProbeSession(t, ProbePacketTest.KEY, interval, Duration.ofMillis(50)).run("p", null, null, 64, 40);
        assertThat(r.sent()).isEqualTo(40);
        assertThat(t.sends).hasSize(40);
        // catching up would send the 40 intervals the stall took back to back; sends are paced from
        // due times one interval apart, so a window of one interval holds at most two of them (one
        // late, the next on time), whatever the machine's load
        long step = interval.toNanos();
        int most = 0;
        for (int i = 0; i < t.sends.size(); i++) {
            int in = 0;
            for (int j = i; j < t.sends.size() && t.sends.get(j) - t.sends.get(i) < step; j++) {
                in++;
            }
            most = Math.max(most, in);
        }
        assertThat(most).as("sends within one interval").isLessThanOrEqualTo(3);
        // and every probe still went out: the whole run is at least the stall plus the intervals after it
        long span = t.sends.get(t.sends.size() - 1) - t.sends.get(0);
        assertThat(span).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(200) + 30 * step);
    }
}
