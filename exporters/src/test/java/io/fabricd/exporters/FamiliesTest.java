package io.fabricd.exporters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
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

    /** As an Object: AssertJ's assertThat would take Labels (an Iterable) as a collection. */
    private static Object labelsOf(MetricSnapshots snaps, String family) {
        return snaps.stream().filter(s -> s.getMetadata().getName().equals(family)).findFirst().orElseThrow()
                .getDataPoints().get(0).getLabels();
    }

    private static MetricSnapshots one(Families.LabelSets sets, String family, String value) {
        Families f = new Families(sets);
        f.gauge("a", "A.");
        f.gauge("b", "B.");
        f.add(family, 1, "netdev", value);
        return f.build();
    }

    @Test
    void aLabelSetIsReusedByTheNextCollectionAndForgottenWhenOneDidNotUseIt() {
        Families.LabelSets sets = new Families.LabelSets();
        Object first = labelsOf(one(sets, "a", "eth0"), "a");
        Object again = labelsOf(one(sets, "a", "eth0"), "a");
        assertThat(again).isSameAs(first).isEqualTo(Labels.of("netdev", "eth0"));
        // the same content in another family is the same set; another value is another set
        assertThat(labelsOf(one(sets, "b", "eth0"), "b")).isSameAs(first);
        // a collection without eth0: the next one makes it anew, equal but not the same object
        assertThat(labelsOf(one(sets, "a", "eth1"), "a")).isEqualTo(Labels.of("netdev", "eth1"));
        assertThat(labelsOf(one(sets, "a", "eth0"), "a")).isNotSameAs(first).isEqualTo(first);
    }
}
