package io.fabricd.diagnosis.checks;

import io.fabricd.diagnosis.Plain;
import static io.fabricd.diagnosis.Hosts.model;
import static io.fabricd.diagnosis.Hosts.of;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.diagnosis.Configs;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.diagnosis.Hosts;
import io.fabricd.model.finding.Severity;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LinkDegradedTest {
    static final String CHECK = "link_degraded";

    @Test
    void aPortSlowerThanItsSiblings(@TempDir Path tmp) {
        Path d = Hosts.demo(tmp.resolve("demo"));
        assertThat(of(Hosts.model(d), CHECK)).isEmpty();
        Hosts.write(d, "sys/class/infiniband/mlx5_2/ports/1/rate", "200 Gb/sec (2X NDR)\n");
        assertThat(of(Hosts.model(d), CHECK)).singleElement().satisfies(x -> {
            assertThat(Plain.subject(x)).containsEntry("device", "mlx5_2").containsEntry("port", 1);
            assertThat(x.severity()).isEqualTo(Severity.WARNING);
            assertThat(Plain.evidence(x)).containsEntry("rate", "200 Gb/sec (2X NDR)").containsEntry("sibling_rate", "400 Gb/sec (4X NDR)");
        });
    }

    @Test
    void noSiblingNoStaticExpectation() {
        assertThat(of(model("host-a-ib"), CHECK)).isEmpty(); // one port: nothing to compare with
        assertThat(of(model("host-c-rxe"), CHECK)).isEmpty(); // rxe's rate means nothing
        assertThat(of(model("real-softroce-6.1"), CHECK)).isEmpty();
    }

    @Test
    void configuredRate() {
        DiagnosisConfig c = Configs.link(new DiagnosisConfig.Link(800.0, null));
        assertThat(of(model("host-a-ib"), null, c, CHECK)).singleElement()
                .satisfies(x -> assertThat(Plain.evidence(x)).containsEntry("expected_rate_gbps", 800.0));
        assertThat(of(model("host-a-ib"), null, Configs.link(new DiagnosisConfig.Link(400.0, null)), CHECK)).isEmpty();
    }
}
