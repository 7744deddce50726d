package io.fabricd.exporters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabricd.collectors.CollectorConfig;
import io.fabricd.collectors.Fixtures;
import io.fabricd.collectors.run.HostCollection;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.diagnosis.run.Diagnosis;
import io.fabricd.diagnosis.run.Report;
import io.fabricd.model.HostModel;
import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.core.metrics.Info;
import io.prometheus.metrics.core.metrics.StateSet;
import io.prometheus.metrics.core.metrics.Summary;
import io.prometheus.metrics.expositionformats.OpenMetricsTextFormatWriter;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Unit;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

/** The agent's writer against client_java's: the same bytes for the same snapshots, in both formats. */
class TextWriterTest {
    private static final String OM = "application/openmetrics-text; version=1.0.0; charset=utf-8";

    private static String clientJava(MetricSnapshots snaps, boolean om, String accept) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        (om ? OpenMetricsTextFormatWriter.create() : PrometheusTextFormatWriter.create())
                .write(out, snaps, EscapingScheme.fromAcceptHeader(accept));
        return out.toString(StandardCharsets.UTF_8);
    }

    /** @param ours whether TextWriter writes it, else client_java's writer (TextWriter.Unsupported) */
    private static void sameAsClientJava(PrometheusRegistry r, boolean ours) throws IOException {
        for (String accept : new String[] {null, "text/plain; version=0.0.4", OM, OM + "; escaping=underscores",
                "text/plain; version=0.0.4; escaping=values"}) {
            boolean om = accept != null && accept.startsWith("application/openmetrics-text");
            MetricSnapshots snaps = r.scrape(); // once: the JVM's values move
            assertThat(new String(Exposition.render(snaps, accept).body(), StandardCharsets.UTF_8)).as(String.valueOf(accept))
                    .isEqualTo(clientJava(snaps, om, accept));
            TextWriter w = new TextWriter();
            if (ours) {
                w.write(snaps, om, EscapingScheme.fromAcceptHeader(accept));
            } else {
                assertThatThrownBy(() -> w.write(snaps, om, EscapingScheme.fromAcceptHeader(accept)))
                        .isInstanceOf(TextWriter.Unsupported.class);
            }
        }
    }

    @Test
    void hostFamiliesAsClientJavaWritesThem() throws IOException {
        for (String host : new String[] {"host-a-ib", "host-f-big", "host-broken"}) {
            HostModel m = HostCollection.standard(CollectorConfig.DEFAULT).collect(Fixtures.open(host));
            Report report = Diagnosis.run(m, null, DiagnosisConfig.DEFAULT);
            FabricMetrics f = new FabricMetrics(true);
            f.update(m, report.findings(), report.notJudged(), null);
            PrometheusRegistry r = new PrometheusRegistry();
            r.register(f);
            sameAsClientJava(r, true);
        }
    }

    @Test
    void everyKindOfFamilyTheAgentHas() throws IOException {
        PrometheusRegistry r = new PrometheusRegistry();
        Counter c = Counter.builder().name("odd_total").help("a \"quoted\" help\\with a backslash\nand a line")
                .labelNames("v").register(r);
        for (String v : new String[] {"plain", "quo\"te", "back\\slash", "new\nline", "grüße", "日本", "emoji \uD83D\uDE00",
                "lone \uD800 surrogate", "", "\uD800\""}) {
            c.labelValues(v).inc();
        }
        Gauge g = Gauge.builder().name("values").help("").labelNames("k").unit(Unit.BYTES).register(r);
        double[] values = {0, -0.0, 1, -1, 9_999_999, 10_000_000, 12_345_678, 1e15, 0x1p53, 0x1p53 + 2, 1e22, 0.5, 1.0 / 3,
                Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.MIN_VALUE, Double.MAX_VALUE, -123_456_789_012.0,
                Long.MAX_VALUE, Long.MIN_VALUE, 1e-5};
        Random random = new Random(7);
        for (int i = 0; i < 2000; i++) {
            long l = random.nextLong() >> random.nextInt(64);
            g.labelValues("r" + i).set(random.nextBoolean() ? l : Double.longBitsToDouble(random.nextLong()));
        }
        for (int i = 0; i < values.length; i++) {
            g.labelValues("v" + i).set(values[i]);
        }
        Histogram h = Histogram.builder().name("rtt_seconds").help("round trips").unit(Unit.SECONDS).classicOnly()
                .classicUpperBounds(0.001, 0.01, 0.1, 1).labelNames("peer").register(r);
        h.labelValues("a").observe(0.005);
        h.labelValues("b").observe(3);
        Histogram.builder().name("native_only").help("no classic buckets").nativeOnly().register(r).observe(2);
        Summary s = Summary.builder().name("hold_seconds").help("holds").quantile(0.5, 0.01).quantile(0.99, 0.001).register(r);
        s.observe(0.25);
        Summary.builder().name("count_only").help("a summary without quantiles").register(r).observe(1);
        Info.builder().name("build_info").help("the build").labelNames("version").register(r).addLabelValues("1.0");
        Counter.builder().name("nothing_total").help("no data points").labelNames("x").register(r);
        sameAsClientJava(r, true);
        StateSet.builder().name("states").help("a state set: written by client_java's writer").states("a", "b").register(r);
        sameAsClientJava(r, false);
    }

    @Test
    void theAgentsJvmAndMicrometerFamilies() throws IOException {
        PrometheusRegistry r = new PrometheusRegistry();
        JvmMetrics.builder().register(r);
        PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT, r, Clock.SYSTEM);
        Timer.builder("fabric.agent.collection").description("each collection").register(meters).record(Duration.ofMillis(12));
        DistributionSummary.builder("sizes").baseUnit("bytes").publishPercentiles(0.5, 0.99).publishPercentileHistogram()
                .register(meters).record(1024);
        io.micrometer.core.instrument.Counter.builder("fabric.agent.failures").register(meters).increment();
        io.micrometer.core.instrument.Gauge.builder("fabric.agent.ready", () -> 1).tag("a", "b").register(meters);
        FunctionCounter.builder("refused", r, x -> 3).register(meters);
        sameAsClientJava(r, true);
    }

    @Test
    void gzipBodiesAreTheRenderedOnes() throws IOException {
        PrometheusRegistry r = new PrometheusRegistry();
        Gauge g = Gauge.builder().name("g").help("help").labelNames("i").register(r);
        for (int i = 0; i < 20_000; i++) { // past the gzip buffer's first size
            g.labelValues(Integer.toString(i)).set(i * 31.0);
        }
        for (int round = 0; round < 3; round++) { // buffers reused
            byte[] plain = Exposition.render(r, OM, List.of()).body();
            byte[] gz = Exposition.render(r, OM, List.of(), true, (type, b, n) -> java.util.Arrays.copyOf(b, n));
            try (GZIPInputStream in = new GZIPInputStream(new java.io.ByteArrayInputStream(gz))) {
                assertThat(in.readAllBytes()).isEqualTo(plain);
            }
            assertThat(new String(plain, StandardCharsets.UTF_8)).isEqualTo(clientJava(r.scrape(), true, OM));
        }
        // one buffer, reused from scrape to scrape: no body-sized garbage per scrape but the copy the server sends
        Exposition.Sink<byte[]> buffer = (type, b, n) -> b;
        byte[] first = Exposition.render(r, null, List.of(), false, buffer);
        assertThat((Object) Exposition.render(r, OM, List.of(), false, buffer)).isSameAs(first);
    }
}
