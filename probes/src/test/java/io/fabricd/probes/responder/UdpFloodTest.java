package io.fabricd.probes.responder;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.natives.LibC;
import io.fabricd.probes.ProbeKey;
import io.fabricd.probes.ProbePacket;
import io.fabricd.probes.ProbePacketTest;
import io.fabricd.probes.ProbeResult;
import io.fabricd.probes.mesh.ProbeSession;
import io.fabricd.probes.udp.UdpSocketDrops;
import io.fabricd.probes.udp.UdpTransport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The UDP responder under abuse: a flood of garbage and forged packets is dropped and
 * counted, the responder takes at most 4 x its answer rate of packets per second (so its CPU is
 * bounded by the rate limit, not by the flood), the kernel's drops beyond that are counted as
 * overflow, and probes are answered again once the flood stops.
 */
class UdpFloodTest {
    static final ProbeKey KEY = ProbePacketTest.KEY;

    @Test
    void aFloodCostsTheResponderOnlyItsBudget() throws Exception {
        ResponderStats stats = new ResponderStats();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        int rate = 250;
        int burst = 50;
        try (UdpResponder r = new UdpResponder(LibC.load(), new InetSocketAddress("127.0.0.1", 0), KEY, rate, burst, stats).start();
             DatagramSocket flood = new DatagramSocket()) {
            InetAddress lo = InetAddress.getLoopbackAddress();
            Random random = new Random(7);
            byte[] garbage = new byte[64];
            byte[] forged = new byte[64];
            // fresh, so that its tag is checked (an HMAC each): a stale one is refused by its header
            new ProbePacket(ProbePacket.REQUEST, 1, 1, 1, System.currentTimeMillis(), 64).encode(forged, ProbePacketTest.OTHER);
            long cpu0 = threads.getThreadCpuTime(r.thread().getId());
            long t0 = System.nanoTime();
            long sent = 0;
            while (System.nanoTime() - t0 < 1_500_000_000L) {
                random.nextBytes(garbage);
                flood.send(new DatagramPacket(sent % 2 == 0 ? garbage : forged, 64, lo, r.port()));
                sent++;
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            long answered = stats.answeredCount();
            long rejected = stats.droppedCount("malformed") + stats.droppedCount("unauthenticated");
            long handled = answered + rejected + stats.droppedCount("rate_limited");
            long cpu = threads.getThreadCpuTime(r.thread().getId()) - cpu0;
            System.out.printf("flood: %d packets in %.2f s; responder took %d (budget %d/s), kernel drops reported so far %d, responder CPU %.1f ms%n",
                    sent, seconds, handled, rate * UdpResponder.WORK_FACTOR, stats.droppedCount("overflow"), cpu / 1e6);

            assertThat(sent).as("the flood must outrun the budget to test it").isGreaterThan(5_000);
            assertThat(handled).isPositive()
                    .isLessThanOrEqualTo((long) (burst * UdpResponder.WORK_FACTOR + rate * UdpResponder.WORK_FACTOR * (seconds + 0.5)));
            assertThat(answered).isZero();
            assertThat(rejected).as("every packet taken was garbage or forged, and counted so").isEqualTo(handled);
            // a few hundred packets' work (cold code included): a small share of the flood's wall time,
            // where taking every packet would keep the responder's core busy the whole time
            assertThat(cpu / 1e9).isLessThan(0.25 * seconds);

            // the flood is over: what the socket buffer held (up to net.core.rmem_max) drains within
            // the budget, then probes are answered again
            try (UdpTransport t = new UdpTransport(LibC.load(), new InetSocketAddress("127.0.0.1", r.port()))) {
                long deadline = System.nanoTime() + 30_000_000_000L;
                ProbeSession one = new ProbeSession(t, KEY, Duration.ofMillis(1), Duration.ofMillis(500));
                while (one.run("p", null, null, 64, 1).received() == 0) {
                    assertThat(System.nanoTime()).as("answering again within 30 s of the flood").isLessThan(deadline);
                }
                ProbeResult res = new ProbeSession(t, KEY, Duration.ofMillis(20), Duration.ofSeconds(1)).run("p", null, null, 64, 10);
                assertThat(res.received()).isEqualTo(10);
            }
            // the kernel's drops, as the datagrams queued after them report them: all of them once the
            // buffer has drained
            assertThat(stats.droppedCount("overflow")).as("the kernel's drops").isGreaterThan(sent / 2);
            assertThat(stats.procfsReads()).as("reads of /proc/net/udp").isZero();
        }
    }

    /**
     * A junk flood at the probe port, far beyond the responder's budget, while a known peer probes:
     * the kernel sorts the peer's datagrams into its own socket, so the flood fills only the shared
     * one and the peer's probes are all answered. A peer new during the flood gets its socket once
     * two probes of one session get through the shared socket.
     */
    @Test
    void aFloodAtThePortLeavesKnownPeersAlone() throws Exception {
        ResponderStats stats = new ResponderStats();
        try (UdpResponder r = new UdpResponder(LibC.load(), new InetSocketAddress("127.0.0.1", 0), KEY, 1000, 200, stats).start();
             UdpTransport known = new UdpTransport(LibC.load(), new InetSocketAddress("127.0.0.1", r.port()));
             UdpTransport newcomer = new UdpTransport(LibC.load(), new InetSocketAddress("127.0.0.1", r.port()))) {
            // a timeout far above loopback's RTT: the first answer of a cold JVM (HMAC and socket code
            // not yet compiled) on a busy machine may take a second, and would be late, not lost
            assertThat(new ProbeSession(known, KEY, Duration.ofMillis(1), Duration.ofSeconds(10)).run("p", null, null, 64, 5).received())
                    .isEqualTo(5);
            assertThat(stats.peerSocketCount()).isEqualTo(1);
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong sent = new AtomicLong();
            Thread flooder = new Thread(() -> {
                Random random = new Random(11);
                byte[] garbage = new byte[64];
                try (DatagramSocket flood = new DatagramSocket()) {
                    DatagramPacket p = new DatagramPacket(garbage, 64, InetAddress.getLoopbackAddress(), r.port());
                    long end = System.nanoTime() + 20_000_000_000L; // bounded even if the test fails
                    while (!stop.get() && System.nanoTime() < end) {
                        random.nextBytes(garbage);
                        flood.send(p);
                        sent.incrementAndGet();
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }, "flood");
            flooder.start();
            try {
                Thread.sleep(300); // the shared socket's buffer is full by now
                long overflow0 = stats.droppedCount("overflow");
                ProbeResult res = new ProbeSession(known, KEY, Duration.ofMillis(5), Duration.ofSeconds(1)).run("p", null, null, 64, 200);
                ProbeResult fresh = new ProbeSession(newcomer, KEY, Duration.ofMillis(5), Duration.ofSeconds(1)).run("n", null, null, 64, 400);
                long flooded = stats.droppedCount("overflow") - overflow0;
                System.out.printf("flood of %d packets: the known peer had %d/200 answered, the newcomer %d/400; the kernel dropped %d at the shared socket%n",
                        sent.get(), res.received(), fresh.received(), flooded);
                assertThat(flooded).as("the flood overflowed the shared socket").isGreaterThan(10_000);
                assertThat(res.received() + res.late()).as("the known peer's probes, in its own socket").isGreaterThanOrEqualTo(198);
                assertThat(res.responderOverloaded()).as("its own budget was never exceeded").isFalse();
            } finally {
                stop.set(true);
                flooder.join();
            }
            // the newcomer's odds during the flood are the responder's share of it (its budget over the
            // flood's rate); once two probes of a session are answered it has a socket of its own
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (new ProbeSession(newcomer, KEY, Duration.ofMillis(1), Duration.ofMillis(500)).run("n", null, null, 64, 2).received() < 2) {
                assertThat(System.nanoTime()).as("the newcomer answered within 30 s of the flood").isLessThan(deadline);
            }
            assertThat(stats.peerSocketCount()).isEqualTo(2);
        }
    }

    @Test
    void kernelDropsAreReadFromProcNetUdp(@TempDir Path tmp) throws Exception {
        Path table = tmp.resolve("udp");
        Files.writeString(table, """
                   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops
                  123: 0100007F:2533 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 41231 2 0000000000000000 0
                  456: 00000000:2533 00000000:0000 07 00000000:0003F000 00:00000000 00000000     0        0 41232 2 0000000000000000 4711
                  789: 00000000:2534 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 41233 2 0000000000000000 99
                """);
        assertThat(UdpSocketDrops.of(0x2533, table)).isEqualTo(4711);
        assertThat(UdpSocketDrops.of(0x2534, table)).isEqualTo(99);
        assertThat(UdpSocketDrops.of(1, table)).isZero();
        assertThat(UdpSocketDrops.of(0x2533, tmp.resolve("absent"))).isZero();
    }
}
