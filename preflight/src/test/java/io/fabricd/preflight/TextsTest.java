package io.fabricd.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Rates in reasons: three significant digits, Mb/s below 1 Gb/s, so that a trickle never reads as nothing. */
class TextsTest {
    @ParameterizedTest
    @CsvSource({
        "0, 0.00 Mb/s",
        "4e6, 4.00 Mb/s",
        "4.31e8, 431 Mb/s",
        "9.99e8, 999 Mb/s",
        "9.996e8, 1.00 Gb/s",
        "9.949e9, 9.95 Gb/s",
        "9.96e9, 9.96 Gb/s",
        "9.996e9, 10.0 Gb/s",
        "99.49e9, 99.5 Gb/s",
        "99.96e9, 100 Gb/s",
        "4e11, 400 Gb/s",
        "1e12, 1000 Gb/s"})
    void ratesHaveThreeSignificantDigits(double bps, String text) {
        assertThat(Texts.rate(bps)).isEqualTo(text);
    }
}
