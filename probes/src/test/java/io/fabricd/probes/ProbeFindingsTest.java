package io.fabricd.probes;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Severity;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ProbeFindingsTest {

    static ProbeResult result(String peer, int sent, int lost, long rttMicros) {
        int got = sent - lost;
        long[] rtt = new long[got];
        Arrays.fill(rtt, rttMicros * 1000);
        return new ProbeResult(peer, "udp", null, null, 64, sent, got, 0, lost, rtt, new long[got]);
    }

    @Test
    void lossAboveThresholdOverTheWindow() {
        ProbeFindings f = new ProbeFindings(10, 0.02, 50, 0.005, 5);
        for (int i = 0; i < 10; i++) {
            f.record(result("a:1", 10, i % 2, 100), "r1"); // 5 of 100 lost
            f.record(result("b:1", 10, 0, 100), "r1");
            f.record(result("c:1", 10, 10, 0), "r2");      // unreachable
        }
        List<Finding> out = f.findings();
        assertThat(out).filteredOn(x -> x.check().equals("probe_loss")).extracting(x -> x.subject().get("peer") + " " + x.severity())
                .containsExactlyInAnyOrder("a:1 " + Severity.WARNING, "c:1 " + Severity.CRITICAL);
        assertThat(out).filteredOn(x -> x.subject().get("peer").equals("a:1")).singleElement()
                .satisfies(x -> assertThat(x.evidence()).containsEntry("loss_ratio", 0.05).containsEntry("sent", 100));
        // too few probes for a verdict
        ProbeFindings young = new ProbeFindings(10, 0.02, 50, 0.005, 5);
        young.record(result("a:1", 10, 5, 100), "r1");
        assertThat(young.findings()).isEmpty();
    }

    @Test
    void latencyAboveThresholdOrFarAboveItsPeers() {
        ProbeFindings f = new ProbeFindings(10, 0.02, 50, 0.005, 5);
        for (int i = 0; i < 6; i++) {
            f.record(result("a:1", 10, 0, 100), "r1");
            f.record(result("b:1", 10, 0, 120), "r1");
            f.record(result("c:1", 10, 0, 110), "r1");
            f.record(result("d:1", 10, 0, 900), "r1");   // 8x its peers' median, below 5 ms
            f.record(result("e:1", 10, 0, 7000), "r1");  // above 5 ms
        }
        assertThat(f.findings()).filteredOn(x -> x.check().equals("probe_latency")).extracting(x -> x.subject().get("peer"))
                .containsExactlyInAnyOrder("d:1", "e:1");
        f.retain(Set.of("a:1", "b:1"));
        assertThat(f.findings()).isEmpty();
    }

    @Test
    void crossHostMtuMismatch() {
        ProbeFindings f = new ProbeFindings(10, 0.02, 50, 0.005, 5);
        f.recordMtu("a:1", "mlx5_0", 4096, "mlx5_3", 1024);
        f.recordMtu("b:1", "mlx5_0", 4096, "mlx5_0", 4096);
        assertThat(f.findings()).singleElement().satisfies(x -> {
            assertThat(x.check()).isEqualTo("mtu_mismatch");
            assertThat(x.subject()).containsEntry("peer", "a:1").containsEntry("device", "mlx5_0");
            assertThat(x.evidence()).containsEntry("peer_active_mtu", 1024);
        });
    }
}
