package io.fabricd.agent.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HttpApiTest {
    @ParameterizedTest(name = "[{0}] -> {1}")
    @CsvSource(delimiter = '|', nullValues = "NULL", value = {
            "gzip | true",
            "gzip, deflate | true",
            "deflate, GZIP;q=0.5 | true",
            "gzip;q=0 | false",
            "gzip; q=0.0, identity | false",
            "gzip;q=nonsense | false",
            "identity | false",
            "x-gzip | false",
            "'' | false",
            "; | false",
            ";;, ,; | false",
            ", gzip | true",
            "NULL | false"})
    void acceptsGzipOnlyWhenTheHeaderSaysSo(String header, boolean gzip) {
        assertThat(HttpApi.acceptsGzip(header)).isEqualTo(gzip);
    }
}
