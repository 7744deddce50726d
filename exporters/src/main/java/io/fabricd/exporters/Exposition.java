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

    /** The exposition format an Accept header selects, as a short key (content type and escaping). */
    public static String formatKey(String accept) {
        return writer(accept).getContentType() + ";" + EscapingScheme.fromAcceptHeader(accept);
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
