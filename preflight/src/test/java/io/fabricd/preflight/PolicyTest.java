package io.fabricd.preflight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabricd.model.finding.Severity;
import io.fabricd.model.finding.Subject;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PolicyTest {
    private static FindingInput finding(String check, Severity s) {
        return new FindingInput(check, s, "summary", "fix it", Subject.HOST);
    }

    @Test
    void defaultsAreTheDocumentedOnes() {
        Policy p = Policy.defaults();
        assertThat(p.excludeSeverities()).containsExactly(Severity.CRITICAL);
        assertThat(p.excludeChecks()).isEmpty();
        assertThat(p.ignoreChecks()).isEmpty();
        assertThat(p.lossFactor()).isEqualTo(3.0);
        assertThat(p.latencyFactor()).isEqualTo(3.0);
        assertThat(p.hostFloorSeconds()).isEqualTo(1e-3);
        assertThat(p.hostFactor()).isEqualTo(10.0);
        assertThat(p.bandwidthRatio()).isEqualTo(0.8);
        assertThat(p.minSamples()).isEqualTo(20);
        assertThat(p.unknownPasses()).isFalse();
        assertThat(p.minNodes()).isEqualTo(1);
        assertThat(p.bounds().maxLossRatio()).isEqualTo(0.02);
        assertThat(p.bounds().maxP50Seconds()).isEqualTo(Map.of("udp", 2e-3, "verbs", 5e-3));
        assertThat(p.onSuspectSwitch()).isEqualTo(Policy.SuspectSwitch.EXCLUDE);
        assertThat(Policy.LOSS_FLOOR).isEqualTo(0.01);
        assertThat(Policy.LATENCY_MARGIN_SECONDS).isEqualTo(50e-6);
    }

    @Test
    void criticalFindingsOfEveryCheckExcludeByDefault() {
        Policy p = Policy.defaults();
        assertThat(p.excludes(finding("pfc_missing", Severity.CRITICAL))).isTrue();
        assertThat(p.excludes(finding("ecn_disabled", Severity.WARNING))).isFalse();
        assertThat(p.excludes(finding("anything", Severity.INFO))).isFalse();
    }

    @Test
    void checksNarrowAndIgnoreWidens() {
        Policy only = new Policy(Policy.atLeast(Severity.WARNING), Set.of("pfc_missing"), Set.of(), 3, 3, 1e-3, 10, 0.8, 20, false, 1);
        assertThat(only.excludes(finding("pfc_missing", Severity.WARNING))).isTrue();
        assertThat(only.excludes(finding("port_down", Severity.CRITICAL))).isFalse();
        Policy ignoring = new Policy(null, null, Set.of("port_down"), 3, 3, 1e-3, 10, 0.8, 20, false, 1);
        assertThat(ignoring.excludes(finding("port_down", Severity.CRITICAL))).isFalse();
        assertThat(ignoring.excludes(finding("pfc_missing", Severity.CRITICAL))).isTrue();
    }

    @Test
    void atLeastGivesTheSeveritiesFromTheTop() {
        assertThat(Policy.atLeast(Severity.CRITICAL)).containsExactly(Severity.CRITICAL);
        assertThat(Policy.atLeast(Severity.WARNING)).containsExactlyInAnyOrder(Severity.CRITICAL, Severity.WARNING);
    }

    @Test
    void nonsenseIsRefusedInOneLine() {
        assertThatThrownBy(() -> new Policy(null, null, null, 0, 3, 1e-3, 10, 0.8, 20, false, 1)).hasMessage("loss factor 0.0 is not a number above 0");
        assertThatThrownBy(() -> new Policy(null, null, null, 3, Double.NaN, 1e-3, 10, 0.8, 20, false, 1))
                .hasMessage("latency factor NaN is not a number above 0");
        assertThatThrownBy(() -> new Policy(null, null, null, 3, 3, 0, 10, 0.8, 20, false, 1)).hasMessage("host floor 0.0 is not a number above 0");
        assertThatThrownBy(() -> new Policy(null, null, null, 3, 3, 1e-3, 0, 0.8, 20, false, 1)).hasMessage("host factor 0.0 is not a number above 0");
        assertThatThrownBy(() -> new Policy(null, null, null, 3, 3, 1e-3, 10, 1.5, 20, false, 1)).hasMessage("bandwidth ratio 1.5 is not between 0 and 1");
        assertThatThrownBy(() -> new Policy(null, null, null, 3, 3, 1e-3, 10, 0.8, 0, false, 1)).hasMessage("min samples 0 is below 1");
        assertThatThrownBy(() -> new Policy(null, null, null, 3, 3, 1e-3, 10, 0.8, 20, false, -1)).hasMessage("min nodes -1 is below 0");
    }

    @Test
    void absoluteBoundsOutOfRangeAreRefusedInOneLine() {
        assertThatThrownBy(() -> new AbsoluteBounds(0, Map.of())).hasMessage("absolute loss bound 0.0 is not a ratio above 0");
        assertThatThrownBy(() -> new AbsoluteBounds(0.02, Map.of("udp", -1.0)))
                .hasMessage("absolute p50 bound of udp -1.0 s is not a time above 0");
    }

    @Test
    void unknownPassesIsOneFlag() {
        assertThat(Policy.defaults().withUnknownPasses(true)).isEqualTo(new Policy(null, null, null, 3, 3, 1e-3, 10, 0.8, 20, true, 1));
    }
}
