package io.fabricd.probes.responder;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.natives.LibC;
import io.fabricd.probes.ProbeKey;
import io.fabricd.probes.ProbePacketTest;
import io.fabricd.probes.ProbeResult;
import io.fabricd.probes.mesh.ProbeSession;
import io.fabricd.probes.testing.CapturedProbes;
import io.fabricd.probes.udp.UdpTransport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Captured genuine probes replayed at the UDP responder from thousands of new source ports while a
 * genuine peer probes: the replays cost no socket, no read of /proc/net/udp, and each captured
 * probe is answered at most once; the peer's probes are all answered.
 */
class ReplayStormTest {
    static final ProbeKey KEY = ProbePacketTest.KEY;
    /**
     * More captured probes than the responder keeps peer sockets (its first second answers ~1 200 of
     * them): on a socket each, they would churn them.
     */
    static final int CAPTURED = 4 * UdpResponder.MAX_PEERS;
    /**
     * Copies a second: each is taken off the shared socket (its work budget is 4 000/s), so the first
     * copy of each captured probe is answered as far as the answer budget (1 000/s) goes.
     */
    static final int STORM_RATE = 2500;

    @Test
    void replaysFromNewSourcePortsMakeNoSocketsAndLeaveAPeerAlone() throws Exception {
        ResponderStats stats = new ResponderStats();
        try (UdpResponder r = new UdpResponder(LibC.load(), new InetSocketAddress("127.0.0.1", 0), KEY, 1000, 200, stats).start();
             UdpTransport genuine = new UdpTransport(LibC.load(), new InetSocketAddress("127.0.0.1", r.port()))) {
            assertThat(new ProbeSession(genuine, KEY, Duration.ofMillis(1), Duration.ofSeconds(10)).run("p", null, null, 64, 5).received())
                    .isEqualTo(5);
            assertThat(stats.peerSocketCount()).as("the genuine peer answered from a socket of its own").isEqualTo(1);
            List<byte[]> captured = CapturedProbes.capture(KEY, CAPTURED);
            long opened = stats.peerSocketsOpened();
            long procfs = stats.procfsReads();
            long answered = stats.answeredCount();

            Storm storm = new Storm(r.port(), captured);
            storm.start();
            int sent = 0;
            int received = 0;
            ProbeResult last = null;
            try {
                // the genuine peer probes on, 200/s, while the storm lasts
                while (!storm.done.get()) {
                    last = new ProbeSession(genuine, KEY, Duration.ofMillis(5), Duration.ofSeconds(2)).run("p", null, null, 64, 50);
                    sent += last.sent();
                    received += last.received() + last.late();
                }
            } finally {
                storm.join();
            }
            long replayAnswers = stats.answeredCount() - answered - received;
            System.out.printf("replay storm: %d copies of %d captured probes from %d source ports; %d answered, %d dropped as replayed; "
                    + "the genuine peer had %d/%d answered; peer sockets opened %d, /proc/net/udp read %d times%n",
                    storm.sent, captured.size(), storm.ports.size(), replayAnswers, stats.droppedCount("replayed"), received, sent,
                    stats.peerSocketsOpened() - opened, stats.procfsReads() - procfs);

            assertThat(storm.ports).as("the storm came from thousands of source ports").hasSizeGreaterThan(2000);
            assertThat(stats.peerSocketsOpened() - opened).as("sockets opened for the replays").isZero();
            assertThat(stats.peerSocketCount()).isEqualTo(1);
            assertThat(stats.procfsReads() - procfs).as("reads of /proc/net/udp during the storm").isZero();
            assertThat(replayAnswers).as("each captured probe answered at most once").isLessThanOrEqualTo(captured.size());
            assertThat(stats.droppedCount("replayed")).as("copies dropped as replays").isGreaterThan(captured.size());
            assertThat(stats.droppedCount("unauthenticated") + stats.droppedCount("malformed")).isZero();
            // the peer's probes reach its own socket, with its own budget (1000/s, it sends 200/s): each is
            // answered; 2 s of timeout leave room for a loaded machine to deschedule the responder
            assertThat(received).as("the genuine peer's probes answered").isEqualTo(sent);
            assertThat(last.responderOverloaded()).isFalse();
        }
    }

    /**
     * Sends the captured probes round and round for 3 s at {@link #STORM_RATE}, each copy from a
     * socket (a source port) of its own.
     */
    static final class Storm extends Thread {
        final AtomicBoolean done = new AtomicBoolean();
        final Set<Integer> ports = new HashSet<>();
        private final int port;
        private final List<byte[]> captured;
        long sent;

        Storm(int port, List<byte[]> captured) {
            super("replay-storm");
            this.port = port;
            this.captured = captured;
        }

        @Override
        public void run() {
            InetSocketAddress to = new InetSocketAddress("127.0.0.1", port);
            long due = System.nanoTime();
            long end = due + 3_000_000_000L;
            try {
                while (System.nanoTime() < end) {
                    long early = due - System.nanoTime();
                    if (early > 0) {
                        LockSupport.parkNanos(early);
                        continue;
                    }
                    due += 1_000_000_000L / STORM_RATE;
                    try (DatagramChannel ch = DatagramChannel.open()) {
                        ch.bind(new InetSocketAddress("127.0.0.1", 0));
                        ports.add(((InetSocketAddress) ch.getLocalAddress()).getPort());
                        ch.send(ByteBuffer.wrap(captured.get((int) (sent % captured.size()))), to);
                        sent++;
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } finally {
                done.set(true);
            }
        }
    }
}
