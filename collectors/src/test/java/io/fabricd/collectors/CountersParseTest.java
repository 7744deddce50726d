package io.fabricd.collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabricd.model.Counters;
import java.math.BigInteger;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class CountersParseTest {

    @Test
    void parsesUnsigned64() {
        assertThat(Counters.parse("0\n")).isZero();
        assertThat(Counters.parse("18446744073709551615\n")).isEqualTo(-1L);
        assertThat(Counters.parse("18446744073709551616")).isNull();
        assertThat(Counters.parse("N/A (no PMA)")).isNull();
        assertThat(Counters.parse("")).isNull();
        assertThat(Counters.parse("-1")).isNull();
        assertThat(Counters.parse("+1")).isNull();
        assertThat(Counters.toDouble(-1L)).isEqualTo(1.8446744073709552E19);
    }

    static Stream<Long> randomValues() {
        Random r = new Random(20261129L);
        return IntStream.range(0, 200).mapToObj(i -> r.nextLong());
    }

    @ParameterizedTest
    @MethodSource("randomValues")
    void roundTripsAnyUnsignedValue(long v) {
        assertThat(Counters.parse(Long.toUnsignedString(v) + "\n")).isEqualTo(v);
        assertThat(Counters.toDouble(v)).isEqualTo(new BigInteger(Long.toUnsignedString(v)).doubleValue());
    }

    @Test
    void deviceGlobs() {
        CollectorConfig c = new CollectorConfig(List.of("mlx5_*", "rxe?"), List.of("mlx5_[!0]"), Set.of());
        assertThat(c.deviceSelected("mlx5_0")).isTrue();
        assertThat(c.deviceSelected("mlx5_1")).isFalse();
        assertThat(c.deviceSelected("mlx5_bond_0")).isTrue();
        assertThat(c.deviceSelected("rxe0")).isTrue();
        assertThat(c.deviceSelected("rxe10")).isFalse();
        assertThat(c.deviceSelected("ibp25s0")).isFalse();
        assertThat(CollectorConfig.DEFAULT.deviceSelected("anything.at+all")).isTrue();
        assertThatThrownBy(() -> new CollectorConfig(List.of("mlx5_[0"), List.of(), Set.of()).validateGlobs())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unclosed");
    }
}
