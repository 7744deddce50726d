package io.fabricd.probes;

import static org.assertj.core.api.Assertions.assertThat;

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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The UDP responder under abuse (issue 7): a flood of garbage and forged packets is dropped and
 * counted, the responder takes at most 4 x its answer rate of packets per second (so its CPU is
 * bounded by the rate limit, not by the flood), the kernel's drops beyond that are counted as
 * overflow, and probes are answered again once the flood stops.
 */
class UdpFloodTest {
    static final ProbeKey KEY = ProbePacketTest.KEY;

    @Test
    void aFloodCostsTheResponderOnlyItsBudget() throws Exception {
        UdpResponder.ResponderStats stats = new UdpResponder.ResponderStats();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        int rate = 250;
        int burst = 50;
        try (UdpResponder r = new UdpResponder(new InetSocketAddress("127.0.0.1", 0), KEY, rate, burst, stats).start();
             DatagramSocket flood = new DatagramSocket()) {
            InetAddress lo = InetAddress.getLoopbackAddress();
            Random random = new Random(7);
            byte[] garbage = new byte[64];
            byte[] forged = new byte[64];
            new ProbePacket(ProbePacket.REQUEST, 1, 1, 1, 0, 64).encode(forged, ProbePacketTest.OTHER);
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
            System.out.printf("flood: %d packets in %.2f s; responder took %d (budget %d/s), kernel dropped %d, responder CPU %.1f ms%n",
                    sent, seconds, handled, rate * UdpResponder.WORK_FACTOR, stats.droppedCount("overflow"), cpu / 1e6);

            assertThat(sent).as("the flood must outrun the budget to test it").isGreaterThan(5_000);
            assertThat(handled).isPositive()
                    .isLessThanOrEqualTo((long) (burst * UdpResponder.WORK_FACTOR + rate * UdpResponder.WORK_FACTOR * (seconds + 0.5)));
            assertThat(answered).isZero();
            assertThat(rejected).as("every packet taken was garbage or forged, and counted so").isEqualTo(handled);
            assertThat(stats.droppedCount("overflow")).as("the kernel's drops, from /proc/net/udp").isPositive();
            // a few hundred packets' work (cold code included): a small share of the flood's wall time,
            // where taking every packet would keep the responder's core busy the whole time
            assertThat(cpu / 1e9).isLessThan(0.25 * seconds);

            // the flood is over: what the socket buffer held (up to net.core.rmem_max) drains within
            // the budget, then probes are answered again
            try (UdpTransport t = new UdpTransport(new InetSocketAddress("127.0.0.1", r.port()))) {
                long deadline = System.nanoTime() + 30_000_000_000L;
                ProbeSession one = new ProbeSession(t, KEY, Duration.ofMillis(1), Duration.ofMillis(500));
                while (one.run("p", null, null, 64, 1).received() == 0) {
                    assertThat(System.nanoTime()).as("answering again within 30 s of the flood").isLessThan(deadline);
                }
                ProbeResult res = new ProbeSession(t, KEY, Duration.ofMillis(20), Duration.ofSeconds(1)).run("p", null, null, 64, 10);
                assertThat(res.received()).isEqualTo(10);
            }
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
