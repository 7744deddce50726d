package io.fabricd.probes.mesh;

import io.fabricd.probes.ProbeResult;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.model.probe.ProbeResults;
import java.util.Arrays;
import java.util.Set;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

class ProbeWindowsTest {

    static ProbeResult result(String peer, int sent, int lost, long rttMicros) {
        int got = sent - lost;
        long[] rtt = new long[got];
        Arrays.fill(rtt, rttMicros * 1000);
        return new ProbeResult(peer, "udp", null, null, 64, sent, got, 0, lost, rtt, new long[got], new long[got], null, 0, 0, false);
    }

    @Test
    void theLastRoundsOfAWindowAddUp() {
        ProbeWindows w = new ProbeWindows(10);
        for (int i = 0; i < 12; i++) {
            w.record(result("a:1", 10, i < 2 ? 10 : i % 2, i < 2 ? 0 : 100 + i), "r1", null); // the two lossy rounds fall out
            w.record(result("c:1", 10, 10, 0), null, null);                                     // unreachable
        }
        assertThat(w.snapshot().windows()).hasSize(2).first().satisfies(a -> {
            assertThat(a.peer()).isEqualTo("a:1");
            assertThat(a.peerRack()).isEqualTo("r1");
            assertThat(a.sent()).isEqualTo(100);
            assertThat(a.lost()).isEqualTo(5);
            assertThat(a.p50Seconds()).isBetween(105e-6, 107e-6);
            assertThat(a.p99Seconds()).isCloseTo(111e-6, Assertions.within(1e-12));
        });
        assertThat(w.snapshot().windows().get(1)).satisfies(c -> {
            assertThat(c.peerRack()).isEmpty();
            assertThat(c.lost()).isEqualTo(100);
            assertThat(c.p50Seconds()).isNull();
        });
    }

    @Test
    void theWindowCarriesTheMedianOfItsResponderHolds() {
        ProbeWindows w = new ProbeWindows(3);
        // a responder stalled in one round of three: two thirds of its answers held 40 us, a third 30 ms
        long[] quick = new long[10];
        Arrays.fill(quick, 40_000);
        long[] stalled = new long[10];
        Arrays.fill(stalled, 30_000_000);
        long[] rtt = new long[10];
        Arrays.fill(rtt, 20_000);
        for (long[] hold : new long[][] {quick, stalled, quick}) {
            w.record(new ProbeResult("a:1", "udp", null, null, 64, 10, 10, 0, 0, rtt, hold, hold, null, 0, 0, false), "r1", null);
        }
        w.record(new ProbeResult("b:1", "udp", null, null, 64, 10, 0, 0, 10, new long[0], new long[0], new long[0], null, 0, 0, false), "r1", null);
        assertThat(w.snapshot().windows()).extracting(ProbeResults.Window::holdP50Seconds).containsExactly(40e-6, null);
        for (int i = 0; i < 2; i++) {
            w.record(new ProbeResult("a:1", "udp", null, null, 64, 10, 10, 0, 0, rtt, stalled, stalled, null, 0, 0, false), "r1", null);
        }
        assertThat(w.snapshot().windows().get(0).holdP50Seconds()).isEqualTo(30e-3);
        assertThat(w.snapshot().windows().get(0).p50Seconds()).as("the RTTs leave the holds out").isEqualTo(20e-6);
    }

    @Test
    void theWindowCarriesTheTailOfItsResponderHoldsToo() {
        ProbeWindows w = new ProbeWindows(5);
        // a responder that stalls now and then: two answers in ten held 30 ms, the rest 40 us
        long[] someLate = new long[10];
        Arrays.fill(someLate, 40_000);
        someLate[3] = 30_000_000;
        someLate[7] = 30_000_000;
        long[] rtt = new long[10];
        Arrays.fill(rtt, 20_000);
        // and one that paused once: one answer of fifty held 200 ms
        long[] quick = new long[10];
        Arrays.fill(quick, 40_000);
        long[] paused = quick.clone();
        paused[5] = 200_000_000;
        for (int i = 0; i < 5; i++) {
            Arrays.sort(someLate);
            w.record(new ProbeResult("a:1", "udp", null, null, 64, 10, 10, 0, 0, rtt, someLate, someLate, null, 0, 0, false), "r1", null);
            long[] hold = i == 2 ? paused.clone() : quick;
            Arrays.sort(hold);
            w.record(new ProbeResult("b:1", "udp", null, null, 64, 10, 10, 0, 0, rtt, hold, hold, null, 0, 0, false), "r1", null);
        }
        assertThat(w.snapshot().windows()).extracting(ProbeResults.Window::holdP50Seconds).containsExactly(40e-6, 40e-6);
        assertThat(w.snapshot().windows()).extracting(ProbeResults.Window::holdP90Seconds).containsExactly(30e-3, 40e-6);
        w.record(new ProbeResult("c:1", "udp", null, null, 64, 10, 0, 0, 10, new long[0], new long[0], new long[0], null, 0, 0, false), "r1", null);
        assertThat(w.snapshot().windows().get(2).holdP90Seconds()).as("nothing answered: no tail").isNull();
    }

    @Test
    void peersNoLongerPlannedAreForgotten() {
        ProbeWindows w = new ProbeWindows(10);
        w.record(result("a:1", 10, 0, 100), "r1", null);
        w.record(result("d:1", 10, 0, 900), "r1", null);
        w.recordMtu("a:1", "mlx5_0", 4096, "mlx5_3", 1024);
        w.recordMtu("d:1", "mlx5_0", 4096, "mlx5_0", 4096);
        assertThat(w.snapshot().paths()).extracting(ProbeResults.PathMtu::peerMtu).containsExactly(1024, 4096);
        w.retain(Set.of("a:1"));
        assertThat(w.snapshot().windows()).extracting(ProbeResults.Window::peer).containsExactly("a:1");
        assertThat(w.snapshot().paths()).extracting(ProbeResults.PathMtu::peer).containsExactly("a:1");
    }
}
