package io.fabricd.diagnosis.checks;

import io.fabricd.diagnosis.Plain;
import static io.fabricd.diagnosis.Hosts.T0;
import static io.fabricd.diagnosis.Hosts.of;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.diagnosis.Configs;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.diagnosis.Hosts;
import io.fabricd.diagnosis.Rate;
import io.fabricd.diagnosis.run.Diagnosis;
import io.fabricd.model.HostModel;
import io.fabricd.model.finding.Severity;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PortErrorsRisingTest {
    static final String CHECK = "port_errors_rising";
    static final String C = "sys/class/infiniband/mlx5_0/ports/1/counters/";

    @TempDir
    Path tmp;
    Path a;

    @BeforeEach
    void copy() {
        a = Hosts.copy("host-a-ib", tmp.resolve("a"));
    }

    private HostModel at(long seconds, String counter, long value) {
        Hosts.write(a, C + counter, value + "\n");
        return Hosts.model(a, T0.plusSeconds(seconds));
    }

    @Test
    void symbolErrorsAboveTheBerLimit() {
        HostModel before = at(0, "symbol_error", 0);
        HostModel after = at(60, "symbol_error", 10); // 600/h > 120/h
        assertThat(of(after, before, DiagnosisConfig.DEFAULT, CHECK)).singleElement().satisfies(x -> {
            assertThat(x.severity()).isEqualTo(Severity.WARNING);
            assertThat(Plain.subject(x)).containsEntry("device", "mlx5_0").containsEntry("port", 1);
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> rising = (List<Map<String, Object>>) Plain.evidence(x).get("rising");
            assertThat(rising).singleElement().satisfies(r -> {
                assertThat(r).containsEntry("counter", "symbol_error").containsEntry("increase", 10L).containsEntry("threshold", "120/h");
                assertThat(r.get("rate")).isEqualTo("10.0/min");
            });
        });
    }

    @Test
    void aFewSymbolErrorsAnHourAreBelowTheLimit() {
        HostModel before = at(0, "symbol_error", 0);
        HostModel after = at(3600, "symbol_error", 100);
        assertThat(of(after, before, DiagnosisConfig.DEFAULT, CHECK)).isEmpty();
    }

    @Test
    void anyLinkDownedIncrease() {
        HostModel before = at(0, "link_downed", 1);
        HostModel after = at(3600, "link_downed", 2);
        assertThat(of(after, before, DiagnosisConfig.DEFAULT, CHECK)).singleElement()
                .satisfies(x -> assertThat(x.summary()).contains("link_downed +1"));
    }

    @Test
    void saturatedAndResetCountersGiveNoRate() {
        HostModel before = at(0, "symbol_error", 65535);
        HostModel after = at(60, "symbol_error", 65535);
        assertThat(of(after, before, DiagnosisConfig.DEFAULT, CHECK)).isEmpty();
        HostModel reset = at(120, "symbol_error", 3); // perfquery -R: went down
        assertThat(of(reset, after, DiagnosisConfig.DEFAULT, CHECK)).isEmpty();
    }

    @Test
    void configuredThresholdsOverTheDefaults() {
        HostModel before = at(0, "symbol_error", 0);
        HostModel after = at(60, "symbol_error", 10);
        DiagnosisConfig c = Configs.portErrors(Map.of("symbol_error", Rate.parse("1000/h")));
        assertThat(of(after, before, c, CHECK)).isEmpty();
        c = Configs.portErrors(Map.of("symbol_error", Rate.parse("1000/h"),
                "port_xmit_wait", Rate.parse("1/s"))); // any counters/ file can be watched
        Hosts.write(a, C + "port_xmit_wait", "1843221907\n");
        HostModel x0 = Hosts.model(a, T0.plusSeconds(100));
        Hosts.write(a, C + "port_xmit_wait", "1843231907\n");
        HostModel x1 = Hosts.model(a, T0.plusSeconds(110));
        assertThat(of(x1, x0, c, CHECK)).singleElement().satisfies(x -> assertThat(x.summary()).contains("port_xmit_wait +10000"));
    }

    @Test
    void oneShotSaysItHadNoHistory() {
        HostModel m = at(0, "symbol_error", 10);
        // one collection: the totals as info, with their values, never a rate claim
        assertThat(of(m, CHECK)).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.INFO);
            assertThat(f.summary()).contains("symbol_error 10");
        });
        assertThat(Diagnosis.run(m, null).checksWithoutHistory()).contains(CHECK);
        // a "previous" collection that is not earlier is no history either
        assertThat(Diagnosis.run(m, m).checksWithoutHistory()).contains(CHECK);
    }
}
