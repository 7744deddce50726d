package io.fabricd.exporters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class FamiliesTest {

    private static String text(Families f) {
        return new String(Exposition.render(f.build(), null).body(), StandardCharsets.UTF_8);
    }

    @Test
    void familiesAndSeriesComeOutSortedAndEmptyFamiliesAreLeftOut() {
        Families f = new Families();
        f.gauge("z_gauge", "Last by name.");
        f.counter("a_counter", "First by name.");
        f.gauge("m_empty", "No point.");
        f.add("z_gauge", 2, "port", "2");
        f.add("z_gauge", 1, "port", "1");
        f.add("a_counter", 5, "device", "mlx5_0");
        assertThat(text(f)).isEqualTo("""
                # HELP a_counter_total First by name.
                # TYPE a_counter_total counter
                a_counter_total{device="mlx5_0"} 5.0
                # HELP z_gauge Last by name.
                # TYPE z_gauge gauge
                z_gauge{port="1"} 1.0
                z_gauge{port="2"} 2.0
                """);
    }

    @Test
    void aNullLabelValueIsEmptyAndTheCallersArrayIsNotChanged() {
        Families f = new Families();
        f.gauge("g", "G.");
        String[] labels = {"netdev", null};
        f.add("g", 1, labels);
        assertThat(labels[1]).isNull();
        assertThat(text(f)).contains("g{netdev=\"\"} 1.0");
    }

    @Test
    void aLabelSetAddedTwiceANegativeCounterOrAnUndeclaredFamilyFails() {
        Families f = new Families();
        f.gauge("g_twice", "Twice.");
        f.add("g_twice", 1, "a", "x");
        f.add("g_twice", 2, "a", "x");
        assertThatThrownBy(f::build).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Duplicate labels");
        Families g = new Families();
        g.counter("c_negative", "Negative.");
        g.add("c_negative", -1, "a", "x");
        assertThatThrownBy(g::build).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> g.add("undeclared", 1)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aLabelValueOverAKibibyteIsCut() {
        Families f = new Families();
        f.gauge("g", "G.");
        f.add("g", 1, "fw_ver", "9".repeat(1 << 20));
        assertThat(text(f)).contains("g{fw_ver=\"" + "9".repeat(Families.MAX_LABEL_VALUE - 3) + "...\"} 1.0");
    }
}
