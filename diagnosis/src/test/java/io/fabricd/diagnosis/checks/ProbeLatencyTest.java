package io.fabricd.diagnosis.checks;

import static io.fabricd.diagnosis.checks.ProbeChecks.of;
import static io.fabricd.diagnosis.checks.ProbeChecks.window;
import static io.fabricd.diagnosis.checks.ProbeChecks.windows;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProbeLatencyTest {

    @Test
    void latencyAboveThresholdOrFarAboveItsPeers() {
        assertThat(of(windows(window("a:1", 60, 0, 100), window("b:1", 60, 0, 120), window("c:1", 60, 0, 110),
                window("d:1", 60, 0, 900),    // 8x its peers' median, below 5 ms
                window("e:1", 60, 0, 7000)),  // above 5 ms
                "probe_latency")).extracting(x -> x.subject().peer()).containsExactlyInAnyOrder("d:1", "e:1");
        // two peers: no median to be far above, and both below 5 ms
        assertThat(of(windows(window("a:1", 60, 0, 100), window("d:1", 60, 0, 900)), "probe_latency")).isEmpty();
    }
}
