package io.fabricd.exporters;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.collectors.CollectorConfig;
import io.fabricd.collectors.Fixtures;
import io.fabricd.collectors.HostCollection;
import io.fabricd.testing.PromText;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pre-rendered scrape (fabricd families rendered once per collection) equals a full render. */
class PreRenderedExpositionTest {
    static final String OPENMETRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8";

    static String body(Exposition.Rendered r) {
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    /** A registry as the agent has it: fabricd's families of a fixture beside another collector (other_requests, 3). */
    private record Agent(PrometheusRegistry registry, FabricMetrics fabric, Counter other) {
    }

    private static Agent agent(String fixture) {
        PrometheusRegistry registry = new PrometheusRegistry();
        FabricMetrics fabric = new FabricMetrics();
        registry.register(fabric);
        Counter other = Counter.builder().name("other_requests").help("another collector").labelNames("path").register(registry);
        other.labelValues("/metrics").inc(3);
        fabric.update(HostCollection.standard(CollectorConfig.DEFAULT).collect(Fixtures.open(fixture)));
        return new Agent(registry, fabric, other);
    }

    @Test
    void sameSeriesAsAFullRenderInBothFormatsAndRebuiltAfterAnUpdate() {
        Agent a = agent("host-a-ib");
        PrometheusRegistry registry = a.registry();
        FabricMetrics fabric = a.fabric();
        Counter other = a.other();

        for (String accept : new String[] {null, "text/plain; version=0.0.4", OPENMETRICS}) {
            Exposition.Rendered full = Exposition.render(registry, accept, List.of());
            Exposition.Rendered fast = Exposition.render(registry, fabric, accept, List.of());
            assertThat(fast.contentType()).isEqualTo(full.contentType());
            assertThat(PromText.parse(body(fast))).isEqualTo(PromText.parse(body(full))).containsKey("other_requests_total{path=\"/metrics\"}");
            assertThat(body(fast).length()).isEqualTo(body(full).length());
            if (OPENMETRICS.equals(accept)) {
                assertThat(body(fast)).endsWith("# EOF\n");
                assertThat(body(fast).split("# EOF", -1)).hasSize(2);
            }
        }
        // served twice from the cache: the same bytes for the fabricd part; the other collector is live
        other.labelValues("/metrics").inc();
        assertThat(PromText.parse(body(Exposition.render(registry, fabric, null, List.of())))).containsEntry(
                "other_requests_total{path=\"/metrics\"}", 4.0);
        // a new collection replaces the rendering
        fabric.update(HostCollection.standard(CollectorConfig.DEFAULT).collect(Fixtures.open("host-c-rxe")));
        String after = body(Exposition.render(registry, fabric, null, List.of()));
        assertThat(after).contains("device=\"rxe0\"").doesNotContain("device=\"mlx5_0\"");
        // a name[] filter renders only what it names
        assertThat(body(Exposition.render(registry, fabric, null, List.of("fabric_port_up")))).contains("fabric_port_up{")
                .doesNotContain("other_requests");
    }

    /** fabricd's own rendering of its families is used for every escaping but dots, and the whole body equals client_java's. */
    @Test
    void everyEscapingGivesClientJavasBytes() {
        Agent a = agent("host-b-roce");
        PrometheusRegistry registry = a.registry();
        FabricMetrics fabric = a.fabric();
        for (String type : new String[] {"text/plain; version=0.0.4", "application/openmetrics-text; version=1.0.0"}) {
            for (String escaping : new String[] {"", "; escaping=allow-utf-8", "; escaping=underscores", "; escaping=dots", "; escaping=values"}) {
                String accept = type + escaping;
                String full = body(Exposition.render(registry, accept, List.of()));
                String fast = body(Exposition.render(registry, fabric, accept, List.of()));
                assertThat(fast).as(accept).isEqualTo(full).contains(escaping.contains("dots") ? "fabric__port__up" : "fabric_port_up");
            }
        }
    }
}
