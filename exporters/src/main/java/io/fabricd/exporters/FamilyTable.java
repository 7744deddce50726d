package io.fabricd.exporters;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One collection's families as {@link Families#build} leaves them: sorted by name, each family's
 * series in label order with their values. Rendered directly to Prometheus text 0.0.4 and
 * OpenMetrics 1.0 ({@link #render}), or handed out as client_java snapshots made on first use.
 */
final class FamilyTable {
    record Part(Header header, Families.Series[] series, double[] values) {
    }

    private final List<Part> parts;
    private volatile MetricSnapshots snapshots;

    FamilyTable(List<Part> parts) {
        this.parts = parts;
    }

    /** The families' Prometheus names (counters without _total). */
    java.util.Set<String> names() {
        java.util.Set<String> n = new java.util.HashSet<>();
        for (Part p : parts) {
            n.add(p.header().metadata().getPrometheusName());
        }
        return java.util.Set.copyOf(n);
    }

    /** The same families as client_java snapshots (made on first use, then kept). */
    @SuppressWarnings({"unchecked", "rawtypes"})
    MetricSnapshots snapshots() {
        MetricSnapshots s = snapshots;
        if (s == null) {
            List<MetricSnapshot> out = new ArrayList<>(parts.size());
            for (Part p : parts) {
                List points = new ArrayList<>(p.series().length);
                for (int i = 0; i < p.series().length; i++) {
                    Labels l = p.series()[i].labels;
                    double v = p.values()[i];
                    points.add(p.header().counter()
                            ? CounterSnapshot.CounterDataPointSnapshot.builder().labels(l).value(v).build()
                            : GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(l).value(v).build());
                }
                out.add(p.header().counter() ? new CounterSnapshot(p.header().metadata(), points)
                        : new GaugeSnapshot(p.header().metadata(), points));
            }
            s = new MetricSnapshots(out);
            snapshots = s;
        }
        return s;
    }

    /**
     * The families as Prometheus text 0.0.4 or OpenMetrics 1.0 (without the closing
     * {@code # EOF}), byte for byte what client_java's writers make of {@link #snapshots()}
     * (FamiliesRenderingTest).
     */
    byte[] render(boolean openMetrics) {
        Out out = new Out(64 * 1024);
        for (Part p : parts) {
            Header h = p.header();
            out.write(openMetrics ? h.openMetrics() : h.prometheusText());
            byte[] name = h.sampleName();
            Families.Series[] series = p.series();
            double[] values = p.values();
            for (int i = 0; i < series.length; i++) {
                out.write(name);
                out.write(series[i].text);
                out.write((byte) ' ');
                out.number(values[i]);
                out.write((byte) '\n');
            }
        }
        return out.bytes();
    }

    /** Series in this collection (tests). */
    int size() {
        int n = 0;
        for (Part p : parts) {
            n += p.series().length;
        }
        return n;
    }

    /**
     * What a family writes before its samples, per text format, and its client_java metadata; kept
     * per family (the snapshot builders validate name and help on every build).
     */
    record Header(String name, String help, boolean counter, MetricMetadata metadata, byte[] sampleName,
                  byte[] prometheusText, byte[] openMetrics) {
        private static final ConcurrentHashMap<String, Header> KEPT = new ConcurrentHashMap<>();

        static Header of(String name, String help, boolean counter) {
            Header h = KEPT.get(name);
            if (h != null && h.counter == counter && java.util.Objects.equals(h.help, help)) {
                return h;
            }
            MetricMetadata m = (counter ? CounterSnapshot.builder().name(name).help(help).build()
                    : GaugeSnapshot.builder().name(name).help(help).build()).getMetadata();
            String sample = counter ? name + "_total" : name;
            String type = counter ? "counter" : "gauge";
            StringBuilder text = new StringBuilder();
            if (help != null && !help.isEmpty()) {
                text.append("# HELP ").append(sample).append(' ');
                Families.escape(text, help, false);
                text.append('\n');
            }
            text.append("# TYPE ").append(sample).append(' ').append(type).append('\n');
            StringBuilder om = new StringBuilder();
            om.append("# TYPE ").append(name).append(' ').append(type).append('\n');
            if (help != null && !help.isEmpty()) {
                om.append("# HELP ").append(name).append(' ');
                Families.escape(om, help, true);
                om.append('\n');
            }
            h = new Header(name, help, counter, m, sample.getBytes(StandardCharsets.UTF_8),
                    text.toString().getBytes(StandardCharsets.UTF_8), om.toString().getBytes(StandardCharsets.UTF_8));
            KEPT.put(name, h);
            return h;
        }
    }

    /** A growing byte array written without locks or bounds checks per byte (ByteArrayOutputStream synchronizes each write). */
    private static final class Out {
        private byte[] buf;
        private int n;

        Out(int size) {
            buf = new byte[size];
        }

        private void room(int more) {
            if (n + more > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, n + more));
            }
        }

        void write(byte b) {
            room(1);
            buf[n++] = b;
        }

        void write(byte[] b) {
            room(b.length);
            System.arraycopy(b, 0, buf, n, b.length);
            n += b.length;
        }

        /**
         * A sample value as client_java writes it: {@code +Inf}, {@code -Inf}, {@code NaN}, else
         * {@link Double#toString}; whole numbers below 10^7 (most counters) without building a String.
         */
        void number(double v) {
            long l = (long) v;
            if (l == v && l >= 0 && l < 10_000_000 && Double.doubleToRawLongBits(v) != Long.MIN_VALUE) {
                room(10);
                if (l == 0) {
                    buf[n++] = '0';
                } else {
                    int digits = 0;
                    for (long x = l; x > 0; x /= 10) {
                        digits++;
                    }
                    for (int i = n + digits - 1; i >= n; i--) {
                        buf[i] = (byte) ('0' + l % 10);
                        l /= 10;
                    }
                    n += digits;
                }
                buf[n++] = '.';
                buf[n++] = '0';
                return;
            }
            String s = v == Double.POSITIVE_INFINITY ? "+Inf" : v == Double.NEGATIVE_INFINITY ? "-Inf"
                    : Double.isNaN(v) ? "NaN" : Double.toString(v);
            room(s.length());
            for (int i = 0; i < s.length(); i++) {
                buf[n++] = (byte) s.charAt(i);
            }
        }

        byte[] bytes() {
            return Arrays.copyOf(buf, n);
        }
    }
}
