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
import java.util.Arrays;
import java.util.Collection;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.zip.CRC32;
import java.util.zip.Deflater;

/**
 * Renders a registry as Prometheus text 0.0.4 or OpenMetrics 1.0, chosen by the Accept header, on
 * each scrape ({@link TextWriter}), gzip-compressed when asked, into buffers reused from scrape to
 * scrape: one set per render running at once (the agent's worker threads), a buffer kept up to 4 MiB.
 */
public final class Exposition {
    private static final ExpositionFormats FORMATS = ExpositionFormats.init();
    private static final ConcurrentLinkedQueue<Buffers> FREE = new ConcurrentLinkedQueue<>();
    private static final int KEPT = 4 << 20;
    /** gzip's member header: deflate, no name, no time, unknown system. */
    private static final byte[] GZIP_HEADER = {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, (byte) 0xff};

    private Exposition() {
    }

    /** A rendered scrape. */
    public record Rendered(String contentType, byte[] body) {
    }

    /** Takes a body's bytes (copies them) before their buffer serves the next render. */
    @FunctionalInterface
    public interface Sink<T> {
        T take(String contentType, byte[] bytes, int length);
    }

    /**
     * @param accept the request's Accept header (null: text 0.0.4)
     * @param names  {@code name[]} filter; empty: everything. "x" and "x_total" both select counter x.
     */
    public static Rendered render(PrometheusRegistry registry, String accept, Collection<String> names) {
        return render(registry, accept, names, false, Exposition::copy);
    }

    /** The same, handed to {@code sink}; gzip-compressed when {@code gzip}. */
    public static <T> T render(PrometheusRegistry registry, String accept, Collection<String> names, boolean gzip, Sink<T> sink) {
        MetricSnapshots snaps = names == null || names.isEmpty()
                ? registry.scrape()
                : registry.scrape(MetricNameFilter.builder().nameMustBeEqualTo(names).build());
        return render(snaps, accept, gzip, sink);
    }

    public static Rendered render(MetricSnapshots snaps, String accept) {
        return render(snaps, accept, false, Exposition::copy);
    }

    /** A body gzip-compressed (at the fastest level: a scrape or JSON body compresses ~10x at any). */
    public static <T> T gzip(String contentType, byte[] body, Sink<T> sink) {
        Buffers b = take();
        try {
            b.gzip(body, body.length);
            return sink.take(contentType, b.gz, b.gzLength);
        } finally {
            give(b);
        }
    }

    private static <T> T render(MetricSnapshots snaps, String accept, boolean gzip, Sink<T> sink) {
        ExpositionFormatWriter w = accept == null ? FORMATS.getPrometheusTextFormatWriter() : FORMATS.findWriter(accept);
        if (w.getContentType().startsWith("application/vnd.google.protobuf")) {
            w = FORMATS.getPrometheusTextFormatWriter(); // protobuf is not bundled
        }
        EscapingScheme scheme = EscapingScheme.fromAcceptHeader(accept);
        Buffers b = take();
        try {
            TextWriter t = b.text;
            boolean om = w == FORMATS.getOpenMetricsTextFormatWriter();
            boolean written = om || w == FORMATS.getPrometheusTextFormatWriter();
            try {
                if (written) {
                    t.write(snaps, om, scheme);
                }
            } catch (TextWriter.Unsupported e) {
                written = false;
            }
            byte[] body = t.buf;
            int length = t.len;
            if (!written) { // client_java's writer: see TextWriter
                ByteArrayOutputStream out = new ByteArrayOutputStream(64 << 10);
                try {
                    w.write(out, snaps, scheme);
                } catch (IOException io) {
                    throw new UncheckedIOException(io);
                }
                body = out.toByteArray();
                length = body.length;
            }
            if (!gzip) {
                return sink.take(w.getContentType(), body, length);
            }
            b.gzip(body, length);
            return sink.take(w.getContentType(), b.gz, b.gzLength);
        } finally {
            give(b);
        }
    }

    private static Rendered copy(String contentType, byte[] bytes, int length) {
        return new Rendered(contentType, Arrays.copyOf(bytes, length));
    }

    private static Buffers take() {
        Buffers b = FREE.poll();
        return b != null ? b : new Buffers();
    }

    private static void give(Buffers b) {
        if (b.text.buf.length <= KEPT && b.gz.length <= KEPT) {
            FREE.offer(b);
        } else {
            b.deflater.end();
        }
    }

    /** A text writer's buffer and a gzip member's, with the compressor. */
    private static final class Buffers {
        final TextWriter text = new TextWriter();
        final Deflater deflater = new Deflater(Deflater.BEST_SPEED, true);
        final CRC32 crc = new CRC32();
        byte[] gz = new byte[16 << 10];
        int gzLength;

        void gzip(byte[] body, int length) {
            crc.reset();
            crc.update(body, 0, length);
            deflater.reset();
            deflater.setInput(body, 0, length);
            deflater.finish();
            System.arraycopy(GZIP_HEADER, 0, gz, 0, GZIP_HEADER.length);
            gzLength = GZIP_HEADER.length;
            while (!deflater.finished()) {
                if (gzLength == gz.length) {
                    gz = Arrays.copyOf(gz, gz.length * 2);
                }
                gzLength += deflater.deflate(gz, gzLength, gz.length - gzLength);
            }
            if (gzLength + 8 > gz.length) {
                gz = Arrays.copyOf(gz, gzLength + 8);
            }
            int sum = (int) crc.getValue();
            for (int v : new int[] {sum, length}) { // little-endian: the CRC-32 and the length
                for (int i = 0; i < 4; i++) {
                    gz[gzLength++] = (byte) (v >>> 8 * i);
                }
            }
        }
    }
}
