package io.fabricd.probes.udp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.model.finding.Severity;
import io.fabricd.natives.LibC;
import io.fabricd.probes.ProbeKey;
import io.fabricd.probes.ProbePacket;
import io.fabricd.probes.ProbePacketTest;
import io.fabricd.probes.ProbeResult;
import io.fabricd.probes.ProbeTransport;
import io.fabricd.probes.mesh.ProbeMetrics;
import io.fabricd.probes.mesh.ProbeSession;
import io.fabricd.probes.mesh.ProbeWindows;
import io.fabricd.probes.responder.ResponderStats;
import io.fabricd.probes.responder.UdpResponder;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.io.IOException;
import java.net.BindException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.Arrays;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

/** The UDP transport against a real responder on loopback. */
class UdpProbeTest {
    static final ProbeKey KEY = ProbePacketTest.KEY;

    @Test
    void everyProbeAnsweredAtSmallAndLargeSizes() throws Exception {
        ResponderStats stats = new ResponderStats();
        try (UdpResponder r = new UdpResponder(LibC.load(), new InetSocketAddress("127.0.0.1", 0), KEY, 10_000, 1000, stats).start()) {
            for (int size : new int[] {64, 1024, 9000}) {
                try (UdpTransport t = new UdpTransport(LibC.load(), new InetSocketAddress("127.0.0.1", r.port()))) {
                    ProbeResult res = new ProbeSession(t, KEY, Duration.ofMillis(1), Duration.ofSeconds(1)).run("p", null, null, size, 200);
                    assertThat(res.received()).as("size " + size).isEqualTo(200);
                    assertThat(res.lost()).isZero();
                    assertThat(res.rttSeconds().get("min")).isGreaterThanOrEqualTo(0.0);
                    assertThat(res.rttSeconds().get("p50")).isLessThanOrEqualTo(res.rttSeconds().get("p99"));
                    // the RTT leaves the responder's hold out; the hosts' share holds it
                    assertThat(res.hostSeconds().get("p50")).isGreaterThanOrEqualTo(res.responderSeconds().get("p50"));
                }
            }
            assertThat(stats.answeredCount()).isEqualTo(600);
        }
    }

    @Test
    void theResponderHistogramsHowLongItHeldEachRequestItAnswered() throws Exception {
        PrometheusRegistry registry = new PrometheusRegistry();
        ResponderStats stats = new ResponderStats();
        new ProbeMetrics(registry, stats, false);
        try (UdpResponder r = new UdpResponder(LibC.load(), new InetSocketAddress("127.0.0.1", 0), KEY, 10_000, 1000, stats).start();
             UdpTransport t = new UdpTransport(LibC.load(), new InetSocketAddress("127.0.0.1", r.port()))) {
            ProbeResult res = new ProbeSession(t, KEY, Duration.ofMillis(1), Duration.ofSeconds(1)).run("p", null, null, 64, 200);
            assertThat(res.received()).isEqualTo(200);
            HistogramSnapshot.HistogramDataPointSnapshot held = null;
            for (MetricSnapshot m : registry.scrape()) {
                if (m.getMetadata().getName().equals("fabric_probe_responder_hold_seconds")) {
                    held = ((HistogramSnapshot) m).getDataPoints().get(0);
                }
            }
            assertThat(held).isNotNull();
            assertThat(held.getCount()).isEqualTo(200);
            // each is timed to the answer's send, after the hold the answer carries was read
            assertThat(held.getSum()).isGreaterThanOrEqualTo(Arrays.stream(res.responderNanos()).sum() / 1e9);
        }
    }

    @Test
    void unauthenticatedAndMalformedPacketsAreDroppedAndCounted() throws Exception {
        ResponderStats stats = new ResponderStats();
        try (UdpResponder r = new UdpResponder(LibC.load(), new InetSocketAddress("127.0.0.1", 0), KEY, 10_000, 1000, stats).start();
             DatagramSocket s = new DatagramSocket()) {
            s.setSoTimeout(300);
            InetAddress lo = InetAddress.getLoopbackAddress();
            byte[] forged = new byte[64];
            new ProbePacket(ProbePacket.REQUEST, 1, 1, 1, System.currentTimeMillis(), 64).encode(forged, ProbePacketTest.OTHER);
            s.send(new DatagramPacket(forged, 64, lo, r.port()));
            s.send(new DatagramPacket(new byte[10], 10, lo, r.port()));
            s.send(new DatagramPacket("GET / HTTP/1.0\r\n\r\n garbage garbage garbage garbage garbage garbage".getBytes(), 66, lo,
                    r.port()));
            // a valid answer is never sent to an unauthenticated request
            byte[] buf = new byte[100];
            assertThat(receives(s, buf)).isFalse();
            assertThat(stats.droppedCount("unauthenticated")).isEqualTo(1);
            assertThat(stats.droppedCount("malformed")).isEqualTo(2);
            assertThat(stats.answeredCount()).isZero();
        }
    }

    @Test
    void theResponderIsRateLimited() throws Exception {
        ResponderStats stats = new ResponderStats();
        try (UdpResponder r = new UdpResponder(LibC.load(), new InetSocketAddress("127.0.0.1", 0), KEY, 50, 20, stats).start();
             UdpTransport t = new UdpTransport(LibC.load(), new InetSocketAddress("127.0.0.1", r.port()))) {
            // 500 probes in half a second: the burst (20) and ~50/s are answered, the rest dropped and counted
            ProbeResult res = new ProbeSession(t, KEY, Duration.ofMillis(1), Duration.ofMillis(300)).run("p", null, null, 64, 500);
            assertThat(res.received() + res.late()).isBetween(20, 120);
            // the responder takes at most 4 x rate packets per second off the socket (UdpFloodTest):
            // the rest waits in the socket buffer and is answered (when a token is free again) or
            // dropped as rate_limited when its turn comes, after the session may have ended
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (stats.answeredCount() + stats.droppedCount("rate_limited") < 500 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(res.received() + res.late()).isLessThanOrEqualTo((int) stats.answeredCount());
            assertThat(stats.answeredCount()).as("the burst and ~50/s over the ~3 s it took").isLessThan(20 + 50 * 6);
            assertThat(stats.droppedCount("rate_limited")).isEqualTo(500 - stats.answeredCount());
        }
    }

    @Test
    void aCapturedRequestIsAnsweredOnceAndAnOldOneNever() throws Exception {
        ResponderStats stats = new ResponderStats();
        try (UdpResponder r = new UdpResponder(LibC.load(), new InetSocketAddress("127.0.0.1", 0), KEY, 10_000, 1000, stats).start();
             DatagramSocket s = new DatagramSocket()) {
            s.setSoTimeout(300);
            InetAddress lo = InetAddress.getLoopbackAddress();
            byte[] req = new byte[64];
            new ProbePacket(ProbePacket.REQUEST, 7, 4242, 1, System.currentTimeMillis(), 64).encode(req, KEY);
            byte[] buf = new byte[100];
            s.send(new DatagramPacket(req, 64, lo, r.port()));
            assertThat(receives(s, buf)).isTrue();
            // the same bytes again (a capture replayed, to this or a spoofed source): never answered
            for (int i = 0; i < 3; i++) {
                s.send(new DatagramPacket(req, 64, lo, r.port()));
            }
            assertThat(receives(s, buf)).isFalse();
            // a request sent more than 30 s ago by its own clock
            byte[] old = new byte[64];
            new ProbePacket(ProbePacket.REQUEST, 1, 99, 1, System.currentTimeMillis() - 31_000, 64).encode(old, KEY);
            s.send(new DatagramPacket(old, 64, lo, r.port()));
            assertThat(receives(s, buf)).isFalse();
            assertThat(stats.answeredCount()).isEqualTo(1);
            assertThat(stats.droppedCount("replayed")).isEqualTo(3);
            assertThat(stats.droppedCount("stale")).isEqualTo(1);
        }
    }

    @Test
    void aResponderThatDropsRequestsItselfSaysSoAndTheLossIsNotBlamedOnTheNetwork() throws Exception {
        ResponderStats stats = new ResponderStats();
        try (UdpResponder r = new UdpResponder(LibC.load(), new InetSocketAddress("127.0.0.1", 0), KEY, 50, 20, stats).start();
             UdpTransport t = new UdpTransport(LibC.load(), new InetSocketAddress("127.0.0.1", r.port()))) {
            ProbeResult res = new ProbeSession(t, KEY, Duration.ofMillis(1), Duration.ofMillis(300)).run("p", null, null, 64, 300);
            assertThat(res.lost()).isPositive();
            assertThat(res.responderOverloaded()).isTrue();
            // the window says so, and probe_loss makes it a warning that blames the responder (ProbeLossTest)
            ProbeWindows w = new ProbeWindows(5);
            w.record(res, "r1", null);
            assertThat(w.snapshot().windows()).singleElement().satisfies(x -> assertThat(x.responderOverloaded()).isTrue());
        }
        // a responder that keeps up says nothing of the kind
        try (UdpResponder r = new UdpResponder(LibC.load(), new InetSocketAddress("127.0.0.1", 0), KEY, 10_000, 1000,
                new ResponderStats()).start();
             UdpTransport t = new UdpTransport(LibC.load(), new InetSocketAddress("127.0.0.1", r.port()))) {
            assertThat(new ProbeSession(t, KEY, Duration.ofMillis(1), Duration.ofSeconds(1)).run("p", null, null, 64, 50)
                    .responderOverloaded()).isFalse();
        }
    }

    /**
     * The responder's sockets share the port (SO_REUSEPORT, one per known peer), but a second
     * responder on a port in use is refused as before, not load-balanced with the first.
     */
    @Test
    void aSecondResponderOnThePortIsRefused() throws Exception {
        ResponderStats stats = new ResponderStats();
        try (UdpResponder r = new UdpResponder(LibC.load(), new InetSocketAddress("127.0.0.1", 0), KEY, 10_000, 1000, stats).start()) {
            Assertions.assertThatThrownBy(() -> new UdpResponder(LibC.load(), new InetSocketAddress("127.0.0.1", r.port()), KEY,
                            10_000, 1000, new ResponderStats()))
                    .isInstanceOf(BindException.class).hasMessageContaining("127.0.0.1:" + r.port() + " is in use");
            try (UdpTransport t = new UdpTransport(LibC.load(), new InetSocketAddress("127.0.0.1", r.port()))) {
                assertThat(new ProbeSession(t, KEY, Duration.ofMillis(1), Duration.ofSeconds(1)).run("p", null, null, 64, 20).received())
                        .isEqualTo(20);
                assertThat(stats.peerSocketCount()).isEqualTo(1);
            }
        }
        // on the wildcard address (the agent's default, a dual-stack socket) the peer's socket takes its datagrams too
        ResponderStats wildcard = new ResponderStats();
        try (UdpResponder r = new UdpResponder(LibC.load(), new InetSocketAddress("0.0.0.0", 0), KEY, 10_000, 1000, wildcard).start();
             UdpTransport t = new UdpTransport(LibC.load(), new InetSocketAddress("127.0.0.1", r.port()))) {
            ProbeSession s = new ProbeSession(t, KEY, Duration.ofMillis(1), Duration.ofSeconds(1));
            assertThat(s.run("p", null, null, 64, 20).received()).isEqualTo(20);
            assertThat(wildcard.peerSocketCount()).isEqualTo(1);
            assertThat(s.run("p", null, null, 64, 20).received()).isEqualTo(20);
        }
    }

    @Test
    void noResponderMeansLossNotAnError() throws Exception {
        int port;
        try (DatagramSocket s = new DatagramSocket(0)) {
            port = s.getLocalPort();
        }
        try (UdpTransport t = new UdpTransport(LibC.load(), new InetSocketAddress("127.0.0.1", port))) {
            ProbeResult res = new ProbeSession(t, KEY, Duration.ofMillis(1), Duration.ofMillis(100)).run("p", null, null, 64, 20);
            assertThat(res.lost()).isEqualTo(20);
            assertThat(res.rttSeconds()).isNull();
        }
    }

    private static boolean receives(DatagramSocket s, byte[] buf) throws Exception {
        try {
            s.receive(new DatagramPacket(buf, buf.length));
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        }
    }

    /**
     * The network/responder split where the NIC timestamps completions (ConnectX; not rxe, so no VM
     * test can show it): a real UDP exchange whose transport reports a NIC round trip of 50 µs more
     * than the responder's processing time. Only the probe sent last is timed: the NIC's timestamps
     * belong to the last send and the last receive.
     */
    @Test
    void withNicTimestampsTheNetworkShareIsTheNicRoundTripMinusTheResponderTime() throws Exception {
        ResponderStats stats = new ResponderStats();
        try (UdpResponder r = new UdpResponder(LibC.load(), new InetSocketAddress("127.0.0.1", 0), KEY, 10_000, 1000, stats).start();
             UdpTransport udp = new UdpTransport(LibC.load(), new InetSocketAddress("127.0.0.1", r.port()))) {
            ProbeTransport timed = new ProbeTransport() {
                final byte[] last = new byte[4096];
                int lastLength;

                public String name() {
                    return udp.name();
                }

                public int maxSize() {
                    return udp.maxSize();
                }

                public void send(byte[] packet, int length) throws IOException {
                    udp.send(packet, length);
                }

                public int receive(byte[] buf, long timeoutNanos) throws IOException {
                    int n = udp.receive(buf, timeoutNanos);
                    if (n > 0) {
                        System.arraycopy(buf, 0, last, 0, n);
                        lastLength = n;
                    }
                    return n;
                }

                public long hardwareRttNanos() { // what a NIC would say: the responder's time + 50 µs of wire
                    try {
                        return ProbePacket.decode(last, lastLength, KEY).responderNanos() + 50_000;
                    } catch (ProbePacket.RejectedException e) {
                        return -1;
                    }
                }

                public void close() {
                }
            };
            ProbeResult res = new ProbeSession(timed, KEY, Duration.ofMillis(2), Duration.ofSeconds(1)).run("p", null, null, 64, 50);
            assertThat(res.received()).isEqualTo(50);
            assertThat(Arrays.stream(res.networkNanos()).boxed().toList()).isNotEmpty().allMatch(n -> n == 50_000L);
            assertThat(res.networkSeconds()).containsEntry("p50", 50e-6);
            assertThat(new ObjectMapper().writeValueAsString(res)).contains("\"network_seconds\"");
        }
        // plain UDP has no NIC timestamps: no network_seconds in the JSON
        try (UdpResponder r = new UdpResponder(LibC.load(), new InetSocketAddress("127.0.0.1", 0), KEY, 10_000, 1000, stats).start();
             UdpTransport t = new UdpTransport(LibC.load(), new InetSocketAddress("127.0.0.1", r.port()))) {
            ProbeResult res = new ProbeSession(t, KEY, Duration.ofMillis(1), Duration.ofSeconds(1)).run("p", null, null, 64, 10);
            assertThat(res.networkNanos()).isNull();
            assertThat(new ObjectMapper().writeValueAsString(res)).doesNotContain("network_seconds");
        }
    }

    /** On Linux both sides take the kernel's arrival times; the RTT leaves the hosts' share out. */
    @Test
    void bothSidesTimeByTheKernelsArrivalStamps() throws Exception {
        assumeTrue(StampedSocket.unavailable(LibC.load()) == null, "no kernel timestamps here: " + StampedSocket.unavailable(LibC.load()));
        ResponderStats stats = new ResponderStats();
        try (UdpResponder r = new UdpResponder(LibC.load(), new InetSocketAddress("127.0.0.1", 0), KEY, 10_000, 1000, stats).start();
             UdpTransport t = new UdpTransport(LibC.load(), new InetSocketAddress("127.0.0.1", r.port()))) {
            assertThat(t.kernelTimestamps()).isTrue();
            assertThat(r.kernelTimestamps()).as("the responder reads its socket itself (--add-opens java.base/sun.nio.ch)").isTrue();
            ProbeResult res = new ProbeSession(t, KEY, Duration.ofMillis(1), Duration.ofSeconds(1)).run("p", null, null, 64, 300);
            assertThat(res.received()).as(new ObjectMapper().writeValueAsString(res) + " answered " + stats.answeredCount()
                    + " malformed " + stats.droppedCount("malformed") + " unauthenticated " + stats.droppedCount("unauthenticated")
                    + " replayed " + stats.droppedCount("replayed") + " rate_limited " + stats.droppedCount("rate_limited")).isEqualTo(300);
            assertThat(res.duplicated()).isZero();
            assertThat(res.rttNanos()[0]).isGreaterThanOrEqualTo(0);
            long rttP50 = res.rttNanos()[149];
            long holdP50 = res.responderNanos()[149];
            long hostP50 = res.hostNanos()[149];
            assertThat(hostP50).as("the hosts' share includes the responder's hold").isGreaterThanOrEqualTo(holdP50);
            assertThat(rttP50).as("loopback, the hosts' share out").isLessThan(Duration.ofMillis(5).toNanos());
        }
    }

    /**
     * A probe leaves at the kernel's transmit stamp: between the clock read just before the send
     * call and the one after it, numbered so that each send gets its own, however many are sent.
     */
    @Test
    void theSendTimeIsTheKernelsTransmitStamp() throws Exception {
        assumeTrue(StampedSocket.unavailable(LibC.load()) == null, "no kernel timestamps here: " + StampedSocket.unavailable(LibC.load()));
        try (DatagramChannel sink = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
             StampedSocket s = StampedSocket.open(LibC.load(), (InetSocketAddress) sink.getLocalAddress(), 1 << 20)) {
            long previous = 0;
            for (int i = 0; i < 200; i++) {
                long before = StampedSocket.now();
                assertThat(s.send(new byte[64], 64)).isTrue();
                long after = StampedSocket.now();
                assertThat(s.sent()).as("send %d", i).isBetween(before, after).isGreaterThanOrEqualTo(previous);
                previous = s.sent();
                sink.receive(ByteBuffer.allocate(128));
            }
        }
    }

    /** Where the kernel's stamps are not wanted (or not there) the NIO channel times probes itself. */
    @Test
    void withoutKernelStampsTheJvmTimesTheProbes() throws Exception {
        try (UdpResponder r = new UdpResponder(LibC.load(), new InetSocketAddress("127.0.0.1", 0), KEY, 10_000, 1000, new ResponderStats()).start();
             UdpTransport t = new UdpTransport(LibC.load(), new InetSocketAddress("127.0.0.1", r.port()), false)) {
            assertThat(t.kernelTimestamps()).isFalse();
            ProbeResult res = new ProbeSession(t, KEY, Duration.ofMillis(1), Duration.ofSeconds(1)).run("p", null, null, 64, 100);
            assertThat(res.received()).isEqualTo(100);
            assertThat(res.rttNanos()[0]).isGreaterThanOrEqualTo(0);
        }
    }

    /**
     * A new peer's probes while the responder opens the peer's own socket: those that arrive between
     * that socket's bind and its connect land in it, and must be answered, not discarded (the JDK's
     * DatagramChannel.connect reads and drops what a socket holds). Each newcomer sends its probes
     * 10 us apart (18 000 in all), so several arrive while its socket is made: 22 were lost so.
     */
    @Test
    void newPeersLoseNoProbeWhileTheirSocketIsMade() throws Exception {
        assumeTrue(StampedSocket.unavailable(LibC.load()) == null, "the kernel-only connect needs libc: " + StampedSocket.unavailable(LibC.load()));
        ResponderStats stats = new ResponderStats();
        int newcomers = 100;
        int probes = 100;
        try (UdpResponder r = new UdpResponder(LibC.load(), new InetSocketAddress("127.0.0.1", 0), KEY, 1_000_000, 100_000, stats).start()) {
            int lost = 0;
            for (int i = 0; i < newcomers; i++) {
                try (UdpTransport t = new UdpTransport(LibC.load(), new InetSocketAddress("127.0.0.1", r.port()))) {
                    ProbeResult res = new ProbeSession(t, KEY, Duration.ofNanos(100_000), Duration.ofSeconds(1)).run("n" + i, null, null, 64, probes);
                    lost += res.sent() - res.received() - res.late();
                }
            }
            assertThat(lost).as("probes lost of " + newcomers * probes + "; answered " + stats.answeredCount() + ", kernel drops "
                    + stats.droppedCount("overflow") + ", rate limited " + stats.droppedCount("rate_limited") + ", replayed "
                    + stats.droppedCount("replayed") + ", stale " + stats.droppedCount("stale")).isZero();
            // one socket per source; a newcomer may get the source port of one closed before it (the
            // kernel reuses ephemeral ports), and so that peer's socket
            assertThat(stats.peerSocketCount()).isBetween(newcomers / 2, newcomers);
        }
    }
}
