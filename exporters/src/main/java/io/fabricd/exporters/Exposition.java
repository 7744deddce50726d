package io.fabricd.exporters;

import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.model.registry.MetricNameFilter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collection;

/** Renders a registry as Prometheus text 0.0.4 or OpenMetrics 1.0, chosen by the Accept header. */
public final class Exposition {
    private static final ExpositionFormats FORMATS = ExpositionFormats.init();

    private Exposition() {
    }

    /** A rendered scrape. */
    public record Rendered(String contentType, byte[] body) {
    }

    /**
     * @param accept the request's Accept header (null: text 0.0.4)
     * @param names  {@code name[]} filter; empty: everything. "x" and "x_total" both select counter x.
     */
    public static Rendered render(PrometheusRegistry registry, String accept, Collection<String> names) {
        MetricSnapshots snaps = names == null || names.isEmpty()
                ? registry.scrape()
                : registry.scrape(MetricNameFilter.builder().nameMustBeEqualTo(names).build());
        return render(snaps, accept);
    }

    /**
     * A scrape of {@code registry} whose fabricd families are the ones pre-rendered per collection
     * ({@link FabricMetrics#rendered}): only the rest (JVM, HTTP server, probes, self metrics) is
     * rendered now, and the two are joined. A {@code name[]} filter renders everything, as
     * {@link #render(PrometheusRegistry, String, Collection)} does.
     */
    public static Rendered render(PrometheusRegistry registry, FabricMetrics fabric, String accept, Collection<String> names) {
        if (names != null && !names.isEmpty()) {
            return render(registry, accept, names);
        }
        ExpositionFormatWriter w = writer(accept);
        EscapingScheme escaping = EscapingScheme.fromAcceptHeader(accept);
        boolean openMetrics = w.getContentType().contains("openmetrics");
        FabricMetrics.Served served = fabric.served();
        String key = w.getContentType() + ";" + escaping;
        byte[] head = direct(w, escaping) ? served.rendered(key, openMetrics) : served.rendered(key, snaps -> {
            byte[] b = write(w, snaps, escaping);
            return openMetrics ? stripEof(b) : b;
        });
        java.util.Set<String> fabricNames = served.names();
        byte[] rest = write(w, registry.scrape(n -> !fabricNames.contains(n)), escaping);
        byte[] body = new byte[head.length + rest.length];
        System.arraycopy(head, 0, body, 0, head.length);
        System.arraycopy(rest, 0, body, head.length, rest.length);
        return new Rendered(w.getContentType(), body);
    }

    /**
     * Whether fabricd's families are rendered by {@link FamilyTable#render} for this writer and
     * escaping: client_java's two text writers, with an escaping that leaves fabricd's names (all
     * valid legacy names) as they are — dots escaping doubles their underscores, so client_java
     * writes those.
     */
    private static boolean direct(ExpositionFormatWriter w, EscapingScheme escaping) {
        return escaping != EscapingScheme.DOTS_ESCAPING
                && (w.getClass() == io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter.class
                || w.getClass() == io.prometheus.metrics.expositionformats.OpenMetricsTextFormatWriter.class);
    }

    /** The exposition format an Accept header selects, as a short key (content type and escaping). */
    public static String formatKey(String accept) {
        return writer(accept).getContentType() + ";" + EscapingScheme.fromAcceptHeader(accept);
    }

    private static final byte[] EOF = "# EOF\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /** OpenMetrics ends with one "# EOF" line: the pre-rendered part leaves its own out. */
    private static byte[] stripEof(byte[] b) {
        int n = b.length - EOF.length;
        return n >= 0 && java.util.Arrays.equals(b, n, b.length, EOF, 0, EOF.length) ? java.util.Arrays.copyOf(b, n) : b;
    }

    private static ExpositionFormatWriter writer(String accept) {
        ExpositionFormatWriter w = accept == null
                ? FORMATS.getPrometheusTextFormatWriter()
                : FORMATS.findWriter(accept);
        if (w.getContentType().startsWith("application/vnd.google.protobuf")) {
            w = FORMATS.getPrometheusTextFormatWriter(); // protobuf is not bundled
        }
        return w;
    }

    private static byte[] write(ExpositionFormatWriter w, MetricSnapshots snaps, EscapingScheme escaping) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64 * 1024);
        try {
            w.write(out, snaps, escaping);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    public static Rendered render(MetricSnapshots snaps, String accept) {
        ExpositionFormatWriter w = writer(accept);
        return new Rendered(w.getContentType(), write(w, snaps, EscapingScheme.fromAcceptHeader(accept)));
    }
}
