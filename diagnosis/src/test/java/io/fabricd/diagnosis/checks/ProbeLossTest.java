package io.fabricd.diagnosis.checks;

import static io.fabricd.diagnosis.checks.ProbeChecks.of;
import static io.fabricd.diagnosis.checks.ProbeChecks.window;
import static io.fabricd.diagnosis.checks.ProbeChecks.windows;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.diagnosis.Configs;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Severity;
import io.fabricd.model.probe.ProbeResults;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProbeLossTest {

    @Test
    void lossAboveThresholdOverTheWindow() {
        List<Finding> out = of(windows(window("a:1", 100, 5, 100), window("b:1", 100, 0, 100), window("c:1", 100, 100, 0)),
                "probe_loss");
        assertThat(out).extracting(x -> x.subject().peer() + " " + x.severity())
                .containsExactlyInAnyOrder("a:1 " + Severity.WARNING, "c:1 " + Severity.CRITICAL);
        assertThat(out).filteredOn(x -> x.subject().peer().equals("a:1")).singleElement().satisfies(x -> {
            assertThat(x.evidence().number("loss_ratio")).isEqualTo(0.05);
            assertThat(x.evidence().number("sent")).isEqualTo(100);
            assertThat(x.evidence().text("peer_rack")).isEqualTo("r1");
        });
        // judged like every other check: disabled_checks turns it off
        assertThat(of(windows(window("c:1", 100, 100, 0)), "probe_loss",
                Configs.disabled(List.of("probe_loss")))).isEmpty();
        // too few probes for a verdict
        assertThat(of(windows(window("a:1", 10, 5, 100)), "probe_loss")).isEmpty();
    }

    @Test
    void aResponderThatDroppedRequestsItselfIsAWarningThatSaysSo() {
        ProbeResults.Window overloaded = new ProbeResults.Window("p", "", "udp", 64, null, 300, 300, 0, true, null, null, null, null);
        assertThat(of(windows(overloaded), "probe_loss")).singleElement().satisfies(x -> {
            assertThat(x.severity()).isEqualTo(Severity.WARNING);
            assertThat(x.evidence().get("responder_overloaded")).hasToString("true");
            assertThat(x.summary()).contains("dropped requests itself");
        });
    }

    @Test
    void oneFindingPerPeerTheMostSevereOfItsSizes() {
        ProbeResults.Window some = window("a:1", 100, 5, 100);
        ProbeResults.Window all = new ProbeResults.Window("a:1", "r1", "udp", 1024, null, 100, 100, 0, false, null, null, null, null);
        assertThat(of(windows(some, all), "probe_loss")).singleElement()
                .satisfies(x -> assertThat(x.severity()).isEqualTo(Severity.CRITICAL));
    }
}
