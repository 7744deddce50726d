package io.fabricd.exporters;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.model.snapshots.Labels;
import org.junit.jupiter.api.Test;

/** The label-set cache (issue 7): same content, same Labels; no value can stand for another. */
class FamiliesTest {

    @Test
    void equalContentFromFreshStringsGivesTheCachedLabels() {
        Labels a = Families.labels("device", "mlx5_0", "port", "1");
        Labels b = Families.labels("device", new String("mlx5_0".toCharArray()), "port", String.valueOf(1));
        assertThat((Object) b).isSameAs(a);
        assertThat((Object) b).isEqualTo(Labels.of("device", "mlx5_0", "port", "1"));
    }

    @Test
    void aNullValueIsAnEmptyLabelAndDistinctContentStaysDistinct() {
        assertThat((Object) Families.labels("netdev", null)).isEqualTo(Labels.of("netdev", ""));
        assertThat((Object) Families.labels("netdev", "")).isEqualTo(Labels.of("netdev", ""));
        // values that concatenate alike must not meet in the cache
        assertThat((Object) Families.labels("a", "x", "b", "yz")).isEqualTo(Labels.of("a", "x", "b", "yz"));
        assertThat((Object) Families.labels("a", "xy", "b", "z")).isEqualTo(Labels.of("a", "xy", "b", "z"));
        assertThat((Object) Families.labels("a", "1", "b", "2")).isNotEqualTo(Families.labels("a", "2", "b", "1"));
    }

    @Test
    void theCallersArrayIsNotKept() {
        String[] kv = {"device", "mlx5_9", "port", "3"};
        Labels first = Families.labels(kv);
        kv[1] = "mlx5_8"; // a caller reusing its array must not change the cached key
        assertThat((Object) Families.labels("device", "mlx5_9", "port", "3")).isSameAs(first);
        assertThat((Object) Families.labels(kv)).isEqualTo(Labels.of("device", "mlx5_8", "port", "3"));
    }
}
