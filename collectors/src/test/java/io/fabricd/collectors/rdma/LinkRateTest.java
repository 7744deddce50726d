package io.fabricd.collectors.rdma;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.model.LinkRate;
import io.fabricd.model.PortState;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class LinkRateTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "2.5 Gb/sec (1X SDR)|312500000|1|SDR",
        "10 Gb/sec (4X SDR)|1250000000|4|SDR",
        "40 Gb/sec (4X FDR10)|5000000000|4|FDR10",
        "56 Gb/sec (4X FDR)|7000000000|4|FDR",
        "100 Gb/sec (4X EDR)|12500000000|4|EDR",
        "200 Gb/sec (2X NDR)|25000000000|2|NDR",
        "400 Gb/sec (4X NDR)|50000000000|4|NDR",
        "800 Gb/sec (8X NDR)|100000000000|8|NDR",
        "800 Gb/sec (4X XDR)|100000000000|4|XDR",
        "300 Gb/sec (12X EDR)|37500000000|12|EDR",
        "10 Gb/sec (1X FDR10)|1250000000|1|FDR10",
        "25 Gb/sec (1X)|3125000000|1|''",
    })
    void parsesKernelRates(String text, long bytes, int width, String speed) {
        LinkRate r = LinkRate.parse(text + "\n");
        assertThat(r).isNotNull();
        assertThat(r.bytesPerSecond()).isEqualTo(bytes);
        assertThat(r.width()).isEqualTo(width);
        assertThat(r.speed()).isEqualTo(speed);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "fast", "Gb/sec", "-10 Gb/sec (4X EDR)", "100 Mb/sec (4X EDR)", "N/A"})
    void rejectsGarbage(String text) {
        assertThat(LinkRate.parse(text)).isNull();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"4: ACTIVE|4|ACTIVE", "5: LinkUp|5|LinkUp", "7: Phy Test|7|Phy Test", "1: DOWN|1|DOWN"})
    void parsesStates(String text, int id, String name) {
        assertThat(PortState.parse(text)).isEqualTo(new PortState(id, name));
    }

    @ParameterizedTest
    @ValueSource(strings = {"ACTIVE", ": x", "x: y", "-1: z", ""})
    void rejectsBadStates(String text) {
        assertThat(PortState.parse(text)).isNull();
    }
}
