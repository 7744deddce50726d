package io.fabricd.collectors.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class FrozenSortedMapTest {
    @Test
    void copiesOtherMapsOnceSortedAndHandsItselfBack() {
        Map<String, Long> src = new HashMap<>(Map.of("b", 2L, "a", 1L, "c", 3L));
        SortedMap<String, Long> f = FrozenSortedMap.of(src);
        src.put("d", 4L); // the copy does not follow its source
        assertThat(f).containsExactly(Map.entry("a", 1L), Map.entry("b", 2L), Map.entry("c", 3L));
        assertThat(FrozenSortedMap.of(f)).isSameAs(f);
        assertThat(f).isEqualTo(new TreeMap<>(Map.of("a", 1L, "b", 2L, "c", 3L))).hasSameHashCodeAs(Map.of("a", 1L, "b", 2L, "c", 3L));
        assertThat(f.firstKey()).isEqualTo("a");
        assertThat(f.headMap("c")).containsOnlyKeys("a", "b");
        assertThat(FrozenSortedMap.of(null)).isEmpty();
        assertThat(FrozenSortedMap.<String, Long>of(Map.of())).isEmpty();
    }

    @Test
    void cannotBeChangedThroughAnyDoor() {
        SortedMap<String, Long> f = FrozenSortedMap.of(Map.of("a", 1L, "b", 2L));
        assertThatThrownBy(() -> f.put("x", 1L)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> f.remove("a")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> f.putAll(Map.of("x", 1L))).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(f::clear).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> f.merge("a", 1L, Long::sum)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> f.replaceAll((k, v) -> 0L)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> f.keySet().remove("a")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> f.entrySet().iterator().next().setValue(9L)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> f.tailMap("a").clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThat(f).containsExactly(Map.entry("a", 1L), Map.entry("b", 2L));
    }

    @Test
    void aNetdevsStatisticsAreCopiedOnceAcrossWithers() {
        NetdevInfo n = new NetdevInfo("eth0", 9000, "up", 1, 100000L, 1, "mlx5_core", null, null, null, null, null, null, null);
        NetdevInfo s = n.withStats(new HashMap<>(Map.of("rx_bytes", 5L)), null);
        NetdevInfo d = s.withDcb(null, "dscp", "dcb-app");
        assertThat(d.stats()).containsExactly(Map.entry("rx_bytes", 5L)).isSameAs(s.stats());
        assertThat(n.stats()).isEmpty();
    }
}
