package io.fabricd.exporters;

import static io.fabricd.model.metrics.MetricFamily.counter;
import static io.fabricd.model.metrics.MetricFamily.gauge;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabricd.model.metrics.FindingMetrics;
import io.fabricd.model.metrics.MetricFamily;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class FamiliesTest {

    private static String text(Families f) {
        return new String(Exposition.render(f.build(), null).body(), StandardCharsets.UTF_8);
    }

    private static String openMetrics(Families f) {
        return new String(Exposition.render(f.build(), "application/openmetrics-text; version=1.0.0").body(), StandardCharsets.UTF_8);
    }

    private static final MetricFamily G = gauge("fabric_g", null, "G.", "netdev");

    @Test
    void familiesAndSeriesComeOutSortedAndEmptyFamiliesAreLeftOut() {
        Families f = new Families();
        MetricFamily z = gauge("fabric_z_gauge", null, "Last by name.", "port");
        MetricFamily a = counter("fabric_a_counter", null, "First by name.", "device");
        f.add(z, 2, "2");
        f.add(z, 1, "1");
        f.add(a, 5, "mlx5_0");
        assertThat(text(f)).isEqualTo("""
                # HELP fabric_a_counter_total First by name.
                # TYPE fabric_a_counter_total counter
                fabric_a_counter_total{device="mlx5_0"} 5.0
                # HELP fabric_z_gauge Last by name.
                # TYPE fabric_z_gauge gauge
                fabric_z_gauge{port="1"} 1.0
                fabric_z_gauge{port="2"} 2.0
                """);
    }

    @Test
    void theDeclaredUnitIsOpenMetricsUnit() {
        Families f = new Families();
        f.add(gauge("fabric_x_seconds", "seconds", "X.", "netdev"), 1, "eth0");
        assertThat(openMetrics(f)).contains("# UNIT fabric_x_seconds seconds\n");
    }

    @Test
    void aNullLabelValueIsEmptyAndTheCallersArrayIsNotChanged() {
        Families f = new Families();
        String[] labels = {null};
        f.add(G, 1, labels);
        assertThat(labels[0]).isNull();
        assertThat(text(f)).contains("fabric_g{netdev=\"\"} 1.0");
    }

    @Test
    void aLabelSetAddedTwiceANegativeCounterOrLabelsOtherThanDeclaredFail() {
        Families f = new Families();
        f.add(G, 1, "x");
        f.add(G, 2, "x");
        assertThatThrownBy(f::build).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Duplicate labels");
        Families g = new Families();
        g.add(counter("fabric_c_negative", null, "Negative.", "a"), -1, "x");
        assertThatThrownBy(g::build).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> g.add(G, 1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("[netdev]");
        assertThatThrownBy(() -> g.add(G, 1, List.of("device"), List.of("x"))).isInstanceOf(IllegalArgumentException.class);
        // a family with more labels than declared takes them by name, never positionally
        assertThatThrownBy(() -> g.add(FindingMetrics.FINDING, 1, "check", "severity")).isInstanceOf(IllegalArgumentException.class);
        g.add(FindingMetrics.FINDING, 1, List.of("check", "severity", "device"), List.of("c", "info", "mlx5_0"));
    }

    @Test
    void aLabelValueOverAKibibyteIsCut() {
        Families f = new Families();
        f.add(gauge("fabric_g", null, "G.", "fw_ver"), 1, "9".repeat(1 << 20));
        assertThat(text(f)).contains("fabric_g{fw_ver=\"" + "9".repeat(Families.MAX_LABEL_VALUE - 3) + "...\"} 1.0");
    }
}
