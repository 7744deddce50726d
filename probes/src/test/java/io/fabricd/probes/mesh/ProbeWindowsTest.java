package io.fabricd.probes.mesh;

import io.fabricd.probes.ProbeResult;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.model.probe.ProbeResults;
import java.util.Arrays;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ProbeWindowsTest {

    static ProbeResult result(String peer, int sent, int lost, long rttMicros) {
        int got = sent - lost;
        long[] rtt = new long[got];
        Arrays.fill(rtt, rttMicros * 1000);
        return new ProbeResult(peer, "udp", null, null, 64, sent, got, 0, lost, rtt, new long[got]);
    }

    @Test
    void theLastRoundsOfAWindowAddUp() {
        ProbeWindows w = new ProbeWindows(10);
        for (int i = 0; i < 12; i++) {
            w.record(result("a:1", 10, i < 2 ? 10 : i % 2, i < 2 ? 0 : 100 + i), "r1"); // the two lossy rounds fall out
            w.record(result("c:1", 10, 10, 0), null);                                     // unreachable
        }
        assertThat(w.snapshot().windows()).hasSize(2).first().satisfies(a -> {
            assertThat(a.peer()).isEqualTo("a:1");
            assertThat(a.peerRack()).isEqualTo("r1");
            assertThat(a.sent()).isEqualTo(100);
            assertThat(a.lost()).isEqualTo(5);
            assertThat(a.p50Seconds()).isBetween(105e-6, 107e-6);
            assertThat(a.p99Seconds()).isCloseTo(111e-6, org.assertj.core.api.Assertions.within(1e-12));
        });
        assertThat(w.snapshot().windows().get(1)).satisfies(c -> {
            assertThat(c.peerRack()).isEmpty();
            assertThat(c.lost()).isEqualTo(100);
            assertThat(c.p50Seconds()).isNull();
        });
    }

    @Test
    void peersNoLongerPlannedAreForgotten() {
        ProbeWindows w = new ProbeWindows(10);
        w.record(result("a:1", 10, 0, 100), "r1");
        w.record(result("d:1", 10, 0, 900), "r1");
        w.recordMtu("a:1", "mlx5_0", 4096, "mlx5_3", 1024);
        w.recordMtu("d:1", "mlx5_0", 4096, "mlx5_0", 4096);
        assertThat(w.snapshot().paths()).extracting(ProbeResults.PathMtu::peerMtu).containsExactly(1024, 4096);
        w.retain(Set.of("a:1"));
        assertThat(w.snapshot().windows()).extracting(ProbeResults.Window::peer).containsExactly("a:1");
        assertThat(w.snapshot().paths()).extracting(ProbeResults.PathMtu::peer).containsExactly("a:1");
    }
}
