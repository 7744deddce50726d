package io.fabricd.probes.bandwidth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabricd.probes.bandwidth.BandwidthMessages.Offer;
import io.fabricd.probes.bandwidth.BandwidthMessages.Start;
import io.fabricd.probes.bandwidth.BandwidthMessages.Stop;
import io.fabricd.probes.bandwidth.VerbsRc.QpAddress;
import io.fabricd.probes.verbs.VerbsPorts;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The server's rules, with queue pairs that record what is done to them (the verbs path itself runs
 * in the Soft-RoCE VM: BandwidthVmIT).
 */
class BandwidthServerTest {
    private static final VerbsPorts.Port RXE0 = new VerbsPorts.Port("rxe0", 1, 1, "Ethernet");
    private final AtomicLong now = new AtomicLong(1_000_000);
    private final List<Pairs> opened = new ArrayList<>();

    private final class Pairs implements BandwidthServer.QueuePairs {
        final int qps;
        List<QpAddress> connectedTo;
        final List<Integer> wrote = new ArrayList<>();
        volatile boolean stopped;
        volatile boolean closed;

        Pairs(int qps) {
            this.qps = qps;
        }

        @Override
        public List<QpAddress> addresses() {
            List<QpAddress> out = new ArrayList<>();
            for (int i = 0; i < qps; i++) {
                out.add(new QpAddress(100 + i, 7, 0, "fe80:0000:0000:0000:0000:0000:0000:0001", 0x1234, 0x7f0000 + i, 1024));
            }
            return out;
        }

        @Override
        public void connect(List<QpAddress> peer) {
            connectedTo = peer;
        }

        @Override
        public VerbsRc.Moved write(boolean send, List<QpAddress> peer, int millis) {
            wrote.add(millis);
            return new VerbsRc.Moved(65536L * 100, 100, 1_000_000_000L);
        }

        @Override
        public VerbsRc.Moved receive(int limitMillis) {
            while (!stopped && limitMillis-- > 0) {
                sleep(1);
            }
            return new VerbsRc.Moved(4096L * 10, 10, 500_000_000L);
        }

        @Override
        public void stopReceiving() {
            stopped = true;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    private BandwidthServer server(Duration minInterval, BandwidthServer.Opener opener) {
        return new BandwidthServer(new BandwidthServer.Limits(Duration.ofSeconds(30), 64L << 20, 16, minInterval),
                d -> d == null || d.equals("rxe0") ? RXE0 : null,
                () -> new Ceiling.Local() {
                    @Override
                    public Double linkBps(String device, int port) {
                        return 10e9;
                    }

                    @Override
                    public Double pcieBps(String device) {
                        return null;
                    }
                }, opener, now::get);
    }

    private BandwidthServer server() {
        return server(Duration.ZERO, (port, size, qps, depth) -> {
            Pairs p = new Pairs(qps);
            opened.add(p);
            return p;
        });
    }

    private static Start start(String device, long size, int qps, long ms) {
        List<QpAddress> qp = new ArrayList<>();
        for (int i = 0; i < qps; i++) {
            qp.add(new QpAddress(200 + i, 9, 0, "fe80:0000:0000:0000:0000:0000:0000:0002", 0x99, 0x5000 + i, 1024));
        }
        return new Start("node-b", device, size, qps, ms, qp, 252e9, false, false);
    }

    @Test
    void startConnectsTheWritersQueuePairsAndOffersItsOwn() throws Exception {
        try (BandwidthServer s = server()) {
            Start st = start(null, 65536, 2, 5000);
            Offer o = s.start(st);
            assertThat(o.device()).isEqualTo("rxe0");
            assertThat(o.port()).isEqualTo(1);
            assertThat(o.qp()).hasSize(2).extracting(QpAddress::qpn).containsExactly(100L, 101L);
            assertThat(o.linkBps()).isEqualTo(10e9);
            assertThat(o.pcieBps()).isNull();
            assertThat(opened).hasSize(1);
            assertThat(opened.get(0).connectedTo).isEqualTo(st.qp());
            assertThat(s.busy()).isTrue();

            s.stop(new Stop(o.id(), 1_000_000_000L, 15_258, 2_000_000_000L, 10e9, "link"));
            assertThat(opened.get(0).closed).isTrue();
            assertThat(s.busy()).isFalse();
            BandwidthResult r = s.results().values().iterator().next();
            assertThat(r.peer()).isEqualTo("node-b");
            assertThat(r.device()).isEqualTo("rxe0");
            assertThat(r.direction()).isEqualTo("rx");
            assertThat(r.bps()).isEqualTo(4e9);
            assertThat(r.ratio()).isEqualTo(0.4);
        }
    }

    @Test
    void oneTestAtATime() throws Exception {
        try (BandwidthServer s = server()) {
            Offer first = s.start(start(null, 65536, 1, 5000));
            assertThatThrownBy(() -> s.start(start(null, 65536, 1, 5000)))
                    .isInstanceOfSatisfying(BandwidthServer.Refused.class, e -> assertThat(e.status()).isEqualTo(409))
                    .hasMessageContaining("node-b is running").hasMessageContaining("one at a time");
            assertThat(opened).hasSize(1);
            s.stop(new Stop(first.id(), 0, 0, 1, null, null));
            assertThat(s.start(start(null, 65536, 1, 5000)).id()).isNotEqualTo(first.id());
        }
    }

    @Test
    void boundedInDurationMemoryAndQueuePairs() {
        try (BandwidthServer s = server()) {
            assertThatThrownBy(() -> s.start(start(null, 65536, 1, 31_000))).hasMessageContaining("bandwidth.max_duration")
                    .isInstanceOfSatisfying(BandwidthServer.Refused.class, e -> assertThat(e.status()).isEqualTo(400));
            assertThatThrownBy(() -> s.start(start(null, 8L << 20, 16, 1000))).hasMessageContaining("bandwidth.max_buffer_bytes");
            assertThatThrownBy(() -> s.start(start(null, 4096, 17, 1000))).hasMessageContaining("qps must be 1 to 16");
            assertThatThrownBy(() -> s.start(start(null, 0, 1, 1000))).hasMessageContaining("size x qps");
            assertThatThrownBy(() -> s.start(new Start("x", null, 4096, 2, 1000, List.of(), null, false, false))).hasMessageContaining("qp must list 2");
            assertThat(opened).isEmpty();
        }
    }

    @Test
    void sizesWhoseProductOverflowsAndFieldsOutOfRangeAreRefused() throws Exception {
        try (BandwidthServer s = server()) {
            // 2^62 x 4 is 2^64: 0 in long arithmetic, "within" any max_buffer_bytes
            assertThatThrownBy(() -> s.start(start(null, 1L << 62, 4, 1000))).hasMessageContaining("size x qps")
                    .isInstanceOfSatisfying(BandwidthServer.Refused.class, e -> assertThat(e.status()).isEqualTo(400));
            assertThatThrownBy(() -> s.start(start(null, Long.MAX_VALUE, 2, 1000))).hasMessageContaining("size x qps");
            List<QpAddress> wide = List.of(new QpAddress(1L << 32, 9, 0, "fe80:0000:0000:0000:0000:0000:0000:0002", 0x99, 0x5000, 1024));
            assertThatThrownBy(() -> s.start(new Start("x", null, 4096, 1, 1000, wide, null, false, false)))
                    .hasMessageContaining("queue pair address is out of range");
            assertThatThrownBy(() -> s.start(new Start("x", null, 4096, 1, 1000, start(null, 4096, 1, 1).qp(), Double.NaN, false, false)))
                    .hasMessageContaining("pcieBps must be");
            assertThat(opened).isEmpty();
            Offer o = s.start(start(null, 4096, 1, 1000));
            for (Stop bad : List.of(new Stop(o.id(), -1, 0, 1, null, null), new Stop(o.id(), 1, 1, Long.MAX_VALUE, null, null),
                    new Stop(o.id(), 1, 1, 1, Double.POSITIVE_INFINITY, null), new Stop(o.id(), 1, 1, 1, null, "x\ny"))) {
                assertThatThrownBy(() -> s.stop(bad)).as(bad.toString())
                        .isInstanceOfSatisfying(BandwidthServer.Refused.class, e -> assertThat(e.status()).isEqualTo(400));
            }
            assertThat(s.busy()).as("a refused stop leaves the test running").isTrue();
        }
    }

    @Test
    void rateLimitedBetweenStarts() throws Exception {
        try (BandwidthServer s = server(Duration.ofSeconds(10), (port, size, qps, depth) -> new Pairs(qps))) {
            Offer o = s.start(start(null, 4096, 1, 1000));
            s.stop(new Stop(o.id(), 0, 0, 1, null, null));
            now.addAndGet(4_000);
            assertThatThrownBy(() -> s.start(start(null, 4096, 1, 1000)))
                    .isInstanceOfSatisfying(BandwidthServer.Refused.class, e -> assertThat(e.status()).isEqualTo(429))
                    .hasMessageContaining("the next one in 6 s");
            now.addAndGet(6_000);
            assertThat(s.start(start(null, 4096, 1, 1000))).isNotNull();
        }
    }

    @Test
    void anUnknownDeviceOrOneWithoutRcIsRefusedWithItsReason() throws Exception {
        try (BandwidthServer s = server()) {
            assertThatThrownBy(() -> s.start(start("mlx5_9", 4096, 1, 1000)))
                    .isInstanceOfSatisfying(BandwidthServer.Refused.class, e -> assertThat(e.status()).isEqualTo(404))
                    .hasMessageContaining("no ACTIVE RDMA port on device mlx5_9");
        }
        try (BandwidthServer s = server(Duration.ZERO, (port, size, qps, depth) -> {
            throw new IOException("rxe0 port 1: ibv_create_qp RC: Operation not supported");
        })) {
            assertThatThrownBy(() -> s.start(start(null, 4096, 1, 1000))).isInstanceOf(IOException.class)
                    .hasMessageContaining("ibv_create_qp RC");
            assertThat(s.busy()).isFalse();
        }
    }

    @Test
    void aWriterThatVanishesIsFreedAtTheDeadline() throws Exception {
        try (BandwidthServer s = server().grace(Duration.ofMillis(100))) {
            Offer o = s.start(start(null, 4096, 1, 50));
            long until = System.nanoTime() + 10_000_000_000L;
            while ((s.busy() || !opened.get(0).closed) && System.nanoTime() < until) {
                Thread.sleep(50);
            }
            assertThat(s.busy()).isFalse();
            assertThat(opened.get(0).closed).isTrue();
            assertThat(s.results()).isEmpty();
            assertThatThrownBy(() -> s.stop(new Stop(o.id(), 1, 1, 1, null, null)))
                    .isInstanceOfSatisfying(BandwidthServer.Refused.class, e -> assertThat(e.status()).isEqualTo(404))
                    .hasMessageContaining("ended by its deadline");
        }
    }

    @Test
    void aStopForAnotherTestLeavesTheRunningOneAlone() throws Exception {
        try (BandwidthServer s = server()) {
            s.start(start(null, 4096, 1, 1000));
            assertThatThrownBy(() -> s.stop(new Stop("0123", 1, 1, 1, null, null))).isInstanceOf(BandwidthServer.Refused.class);
            assertThat(s.busy()).isTrue();
            assertThat(opened.get(0).closed).isFalse();
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aSendTestReceivesUntilTheWriterStops() throws Exception {
        try (BandwidthServer s = server()) {
            Start st = start(null, 4096, 1, 5000);
            Offer o = s.start(new Start(st.client(), null, 4096, 1, 5000, st.qp(), null, true, false));
            Thread.sleep(50);
            assertThat(opened.get(0).stopped).isFalse();
            BandwidthMessages.Done d = s.stop(new Stop(o.id(), 4096L * 10, 10, 500_000_000L, 10e9, "link"));
            assertThat(opened.get(0).stopped).isTrue();
            assertThat(opened.get(0).closed).isTrue();
            assertThat(d.messages()).isEqualTo(10);
            assertThat(d.bytes()).isEqualTo(40960);
        }
    }

    @Test
    void aBidirectionalTestWritesBackAfterGoAndKeepsBothDirections() throws Exception {
        try (BandwidthServer s = server()) {
            Start st = start(null, 65536, 1, 2000);
            Start bidi = new Start(st.client(), null, 65536, 1, 2000, st.qp(), null, false, true);
            Offer o = s.start(bidi);
            assertThat(opened.get(0).wrote).isEmpty();
            s.go(new BandwidthMessages.Go(o.id()));
            assertThatThrownBy(() -> s.go(new BandwidthMessages.Go(o.id()))).hasMessageContaining("already writing back");
            BandwidthMessages.Done d = s.stop(new Stop(o.id(), 65536L * 200, 200, 1_000_000_000L, 100e9, "local_pcie"));
            assertThat(opened.get(0).wrote).containsExactly(2000);
            assertThat(d.messages()).isEqualTo(100);
            assertThat(s.results().values()).extracting(BandwidthResult::direction).containsExactlyInAnyOrder("rx", "tx");
            BandwidthResult back = s.results().values().stream().filter(r -> r.direction().equals("tx")).findFirst().orElseThrow();
            // the writer's local PCIe is this side's peer PCIe
            assertThat(back.limit()).isEqualTo("peer_pcie");
            assertThat(back.bps()).isEqualTo(65536.0 * 100 * 8);
        }
        try (BandwidthServer s = server()) {
            Start st = start(null, 65536, 1, 2000);
            assertThatThrownBy(() -> s.start(new Start(st.client(), null, 65536, 1, 2000, st.qp(), null, true, true)))
                    .hasMessageContaining("RDMA WRITE only");
            Offer o = s.start(st);
            assertThatThrownBy(() -> s.go(new BandwidthMessages.Go(o.id()))).hasMessageContaining("not bidirectional");
        }
    }

    @Test
    void resultsAreBoundedTheOldestGoingFirst() throws Exception {
        try (BandwidthServer s = server()) {
            for (int i = 0; i <= BandwidthServer.MAX_RESULTS; i++) {
                Start st = start(null, 4096, 1, 1000);
                Offer o = s.start(new Start("writer-" + i, null, 4096, 1, 1000, st.qp(), null, false, false));
                now.incrementAndGet();
                s.stop(new Stop(o.id(), 4096, 1, 1_000_000, null, null));
            }
            assertThat(s.results()).hasSize(BandwidthServer.MAX_RESULTS);
            assertThat(s.results().values()).extracting(BandwidthResult::peer).doesNotContain("writer-0")
                    .contains("writer-1", "writer-" + BandwidthServer.MAX_RESULTS);
        }
    }
}
