package io.fabricd.exporters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabricd.collectors.CollectorConfig;
import io.fabricd.collectors.Fixtures;
import io.fabricd.collectors.HostCollection;
import io.fabricd.collectors.model.HostModel;
import io.fabricd.diagnosis.Diagnosis;
import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * fabricd renders its families itself (FamilyTable#render, issue 7): byte for byte what
 * client_java's text writers make of the same families as snapshots, on every fixture, in both
 * formats, and for the values and texts that need care (special numbers, escapes).
 */
class FamiliesRenderingTest {
    private static final ExpositionFormats FORMATS = ExpositionFormats.init();
    private static final String OPENMETRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8";

    static Stream<String> fixtures() {
        return Stream.of("host-a-ib", "host-b-roce", "host-broken", "host-c-rxe", "host-d-topology",
                "host-e-roce-variants", "host-f-big", "real-softroce-6.1");
    }

    /** client_java's rendering of the table's snapshots, OpenMetrics without its # EOF. */
    private static String clientJava(FamilyTable t, boolean openMetrics) throws IOException {
        ExpositionFormatWriter w = openMetrics ? FORMATS.findWriter(OPENMETRICS) : FORMATS.getPrometheusTextFormatWriter();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        w.write(out, t.snapshots(), EscapingScheme.fromAcceptHeader(openMetrics ? OPENMETRICS : null));
        String s = out.toString(StandardCharsets.UTF_8);
        return openMetrics ? s.substring(0, s.length() - "# EOF\n".length()) : s;
    }

    private static String direct(FamilyTable t, boolean openMetrics) {
        return new String(t.render(openMetrics), StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @MethodSource("fixtures")
    void everyFixtureRendersAsClientJavaWouldInBothFormats(String fixture) throws IOException {
        HostModel m = HostCollection.standard(CollectorConfig.DEFAULT).collect(Fixtures.open(fixture));
        for (boolean all : new boolean[] {false, true}) {
            FamilyTable t = FabricMetrics.table(m, all, Diagnosis.run(m, null).findings());
            assertThat(t.size()).isPositive();
            for (boolean om : new boolean[] {false, true}) {
                assertThat(direct(t, om)).as("%s all=%s openMetrics=%s", fixture, all, om).isEqualTo(clientJava(t, om));
            }
        }
    }

    @Test
    void specialValuesEscapesAndLabelOrderAsClientJava() throws IOException {
        Families f = new Families();
        f.gauge("g_values", "Values: a \"quoted\" word, a back\\slash and a\nnewline.");
        f.counter("c_values", "Counter values.");
        f.gauge("a_first", "Sorted before the others by name.");
        double[] gauges = {0, -0.0, 1, -1, 0.5, 1e-4, 1e-3, 9_999_999, 10_000_000, 12_345_678.9, 1.8446744073709552E19,
            Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.MIN_VALUE, Double.MAX_VALUE, Long.MAX_VALUE};
        for (int i = 0; i < gauges.length; i++) {
            f.add("g_values", gauges[i], "z", "last", "a", "v" + i, "m", i % 2 == 0 ? "q\"uo\\te\nnl" : null);
        }
        double[] counters = {0, 1, 4096, 9_999_999, 10_000_000, 2.5, 1.8446744073709552E19, Double.NaN, Double.POSITIVE_INFINITY};
        for (int i = 0; i < counters.length; i++) {
            f.add("c_values", counters[i], "i", Integer.toString(i));
        }
        f.add("a_first", 7);
        FamilyTable t = f.build();
        for (boolean om : new boolean[] {false, true}) {
            assertThat(direct(t, om)).isEqualTo(clientJava(t, om));
        }
        assertThat(direct(t, false)).startsWith("# HELP a_first ").contains("c_values_total{i=\"2\"} 4096.0\n")
                .contains("a=\"v1\",m=\"\",z=\"last\"} -0.0\n");
    }

    /** Seeded random whole and fractional numbers, as counters and gauges: the fast path for whole numbers agrees with Double.toString. */
    @Test
    void randomNumbersAsClientJava() throws IOException {
        Random r = new Random(7);
        Families f = new Families();
        f.gauge("g_random", "Random values.");
        f.counter("c_random", "Random counters.");
        for (int i = 0; i < 5_000; i++) {
            double v = switch (i % 4) {
                case 0 -> r.nextInt(20_000_000);
                case 1 -> Math.abs(r.nextLong()) >>> r.nextInt(63);
                case 2 -> r.nextDouble() * Math.pow(10, r.nextInt(30) - 10);
                default -> r.nextInt(100) / 8.0;
            };
            f.add("c_random", v, "i", Integer.toString(i));
            f.add("g_random", i % 2 == 0 ? -v : v, "i", Integer.toString(i));
        }
        FamilyTable t = f.build();
        for (boolean om : new boolean[] {false, true}) {
            assertThat(direct(t, om)).isEqualTo(clientJava(t, om));
        }
    }

    @Test
    void aLabelSetAddedTwiceOrANegativeCounterFailsAsClientJavaWould() {
        Families f = new Families();
        f.gauge("g_twice", "Twice.");
        f.add("g_twice", 1, "a", "x");
        f.add("g_twice", 2, "a", "x");
        assertThatThrownBy(f::build).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("duplicate labels");
        Families g = new Families();
        g.counter("c_negative", "Negative.");
        assertThatThrownBy(() -> g.add("c_negative", -1, "a", "x")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theSameSeriesInANewOrderAreSortedAgain() throws IOException {
        Families f = new Families();
        f.gauge("g_order", "Order.");
        for (String d : new String[] {"mlx5_2", "mlx5_0", "mlx5_1"}) {
            f.add("g_order", 1, "device", d);
        }
        String first = direct(f.build(), false);
        Families g = new Families();
        g.gauge("g_order", "Order.");
        for (String d : new String[] {"mlx5_1", "mlx5_2", "mlx5_0", "mlx5_3"}) {
            g.add("g_order", 2, "device", d);
        }
        FamilyTable t = g.build();
        assertThat(direct(t, false)).isEqualTo(clientJava(t, false)).contains("device=\"mlx5_3\"");
        assertThat(first.indexOf("mlx5_0")).isLessThan(first.indexOf("mlx5_1"));
        MetricSnapshots s = t.snapshots();
        assertThat(s.get(0).getDataPoints()).hasSize(4);
    }

    /** Each point first tries the series at its position in the last collection: a changed label there is a new series. */
    @Test
    void aChangedLabelAtTheSamePositionIsANewSeries() throws IOException {
        String[] values = {"a", null, "c"};
        for (int round = 0; round < 3; round++) {
            Families f = new Families();
            f.gauge("g_position", "Position.");
            for (int i = 0; i < values.length; i++) {
                f.add("g_position", i, "slot", Integer.toString(i), "value", values[i]);
            }
            FamilyTable t = f.build();
            String text = direct(t, false);
            assertThat(text).isEqualTo(clientJava(t, false));
            for (int i = 0; i < values.length; i++) {
                assertThat(text).contains("g_position{slot=\"" + i + "\",value=\"" + (values[i] == null ? "" : values[i]) + "\"} " + i + ".0\n");
            }
            values = round == 0 ? new String[] {"x", "", "c"} : new String[] {"x", "b", null};
        }
    }
}
