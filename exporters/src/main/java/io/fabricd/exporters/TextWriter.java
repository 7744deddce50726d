package io.fabricd.exporters;

import static io.prometheus.metrics.model.snapshots.SnapshotEscaper.getExpositionBaseMetadataName;
import static io.prometheus.metrics.model.snapshots.SnapshotEscaper.getLegacyGaugeName;
import static io.prometheus.metrics.model.snapshots.SnapshotEscaper.getMetadataName;

import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.TextFormatUtil;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.DistributionDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Quantile;
import io.prometheus.metrics.model.snapshots.SnapshotEscaper;
import io.prometheus.metrics.model.snapshots.SummarySnapshot;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Prometheus text 0.0.4 and OpenMetrics 1.0 written straight into a byte array that is reused
 * from scrape to scrape ({@link Exposition}). client_java's writers go through a {@code Writer} and
 * a charset encoder, whose per-character loops the agent's C1-only JIT cannot make fast (~1.2 µs a
 * sample; docs/benchmarks.md). The bytes are client_java's for everything written here
 * (TextWriterTest holds them equal); what this writer leaves to client_java's, for the whole
 * scrape, is {@link Unsupported}: a name outside the legacy character set, a timestamp, an
 * exemplar in OpenMetrics, a state set, an unknown-typed family or a gauge histogram, none of which
 * the agent's registry has.
 */
final class TextWriter {
    /** Thrown where a snapshot has what this writer does not write. */
    static final class Unsupported extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Unsupported() {
            super(null, null, false, false);
        }
    }

    private static final Unsupported UNSUPPORTED = new Unsupported();
    /** ASCII characters written as they are in a label value (and OpenMetrics' help), in the text format's help. */
    private static final boolean[] PLAIN_VALUE = new boolean[0x80];
    private static final boolean[] PLAIN_HELP = new boolean[0x80];

    static {
        for (char c = 0; c < 0x80; c++) {
            PLAIN_HELP[c] = c != '\\' && c != '\n';
            PLAIN_VALUE[c] = PLAIN_HELP[c] && c != '"';
        }
    }

    private static final int MEMO = 8;
    private static final long NEGATIVE_ZERO = Double.doubleToRawLongBits(-0.0);
    /** Integral values below this are written as digits and ".0", as Double.toString writes them. */
    private static final double PLAIN_BELOW = 1e7;

    byte[] buf = new byte[64 << 10];
    int len;
    private final byte[] digits = new byte[20];
    private char[] chars = new char[256];
    private final String[] names = new String[MEMO];
    private final byte[][] nameBytes = new byte[MEMO][];
    private final String[] values = new String[MEMO];
    private final int[] starts = new int[MEMO];
    private final int[] ends = new int[MEMO];

    /** Replaces what the buffer holds with these snapshots in one of the two formats. */
    void write(MetricSnapshots snapshots, boolean openMetrics, EscapingScheme scheme) {
        len = 0;
        Arrays.fill(names, null);
        Arrays.fill(values, null);
        for (MetricSnapshot s : TextFormatUtil.mergeDuplicates(snapshots)) {
            MetricSnapshot e = SnapshotEscaper.escapeMetricSnapshot(s, scheme);
            if (!e.getDataPoints().isEmpty()) {
                family(e, s.getMetadata().getOriginalName(), openMetrics, scheme);
            }
        }
        if (openMetrics) {
            ascii("# EOF\n");
        }
    }

    private void family(MetricSnapshot s, String originalName, boolean om, EscapingScheme scheme) {
        MetricMetadata m = s.getMetadata();
        String name = getMetadataName(m, scheme);
        byte[] named = name(name, true);
        if (s instanceof CounterSnapshot c) {
            String total = suffixed(m, "_total", scheme);
            meta(om ? total.substring(0, total.length() - 6) : total, "counter", m, om);
            byte[] b = name(total, true);
            for (CounterSnapshot.CounterDataPointSnapshot d : c.getDataPoints()) {
                series(b, null, d, null, 0);
                number(d.getValue());
                end(om && d.getExemplar() != null);
            }
        } else if (s instanceof GaugeSnapshot g) {
            String gauge = om ? name : getLegacyGaugeName(m, originalName, scheme);
            meta(gauge, "gauge", m, om);
            byte[] b = name(gauge, true);
            for (GaugeSnapshot.GaugeDataPointSnapshot d : g.getDataPoints()) {
                series(b, null, d, null, 0);
                number(d.getValue());
                end(false);
            }
        } else if (s instanceof HistogramSnapshot h && !h.isGaugeHistogram()) {
            meta(name, "histogram", m, om);
            for (HistogramSnapshot.HistogramDataPointSnapshot d : h.getDataPoints()) {
                ClassicHistogramBuckets b = d.getClassicBuckets().isEmpty()
                        ? ClassicHistogramBuckets.of(new double[] {Double.POSITIVE_INFINITY}, new long[] {d.getCount()})
                        : d.getClassicBuckets();
                long cumulative = 0;
                for (int i = 0; i < b.size(); i++) {
                    cumulative += b.getCount(i);
                    series(named, "_bucket", d, "le", b.getUpperBound(i));
                    integer(cumulative);
                    end(om && d.getExemplars().size() > 0);
                }
                countAndSum(named, d, !om || d.hasCount() && d.hasSum());
            }
        } else if (s instanceof SummarySnapshot sum) {
            boolean headed = false;
            for (SummarySnapshot.SummaryDataPointSnapshot d : sum.getDataPoints()) {
                if (d.getQuantiles().size() == 0 && !d.hasCount() && !d.hasSum()) {
                    continue;
                }
                if (!headed) {
                    meta(name, "summary", m, om);
                    headed = true;
                }
                for (Quantile q : d.getQuantiles()) {
                    series(named, null, d, "quantile", q.getQuantile());
                    number(q.getValue());
                    end(false);
                }
                countAndSum(named, d, true);
            }
        } else if (s instanceof InfoSnapshot info) {
            String full = suffixed(m, "_info", scheme);
            meta(om ? full.substring(0, full.length() - 5) : full, om ? "info" : "gauge", m, om);
            byte[] b = name(full, true);
            for (InfoSnapshot.InfoDataPointSnapshot d : info.getDataPoints()) {
                series(b, null, d, null, 0);
                ascii("1");
                end(false);
            }
        } else {
            throw UNSUPPORTED;
        }
    }

    /** The name with the suffix a counter or info family is exposed with, as client_java makes it. */
    private static String suffixed(MetricMetadata m, String suffix, EscapingScheme scheme) {
        String base = getExpositionBaseMetadataName(m, scheme);
        return base.endsWith(suffix) ? base : getMetadataName(m, scheme) + suffix;
    }

    private void countAndSum(byte[] name, DistributionDataPointSnapshot d, boolean written) {
        if (written && d.hasCount()) {
            series(name, "_count", d, null, 0);
            integer(d.getCount());
            end(false);
        }
        if (written && d.hasSum()) {
            series(name, "_sum", d, null, 0);
            number(d.getSum());
            end(false);
        }
    }

    /** # TYPE, # UNIT and # HELP in OpenMetrics' order, # HELP and # TYPE in the text format's. */
    private void meta(String name, String type, MetricMetadata m, boolean om) {
        byte[] n = name(name, true);
        String help = m.getHelp() == null || m.getHelp().isEmpty() ? null : m.getHelp();
        if (!om && help != null) {
            comment("# HELP ", n, help, false);
        }
        comment("# TYPE ", n, type, false);
        if (om && m.getUnit() != null) {
            comment("# UNIT ", n, m.getUnit().toString(), true);
        }
        if (om && help != null) {
            comment("# HELP ", n, help, true);
        }
    }

    private void comment(String tag, byte[] name, String text, boolean quote) {
        ascii(tag);
        bytes(name);
        put(' ');
        text(text, quote);
        put('\n');
    }

    /** {@code name{labels,extra="value"} } */
    private void series(byte[] name, String suffix, DataPointSnapshot d, String extra, double extraValue) {
        if (d.hasScrapeTimestamp()) {
            throw UNSUPPORTED;
        }
        bytes(name);
        if (suffix != null) {
            ascii(suffix);
        }
        Labels labels = d.getLabels();
        int n = labels.size();
        if (n > 0 || extra != null) {
            put('{');
            for (int i = 0; i < n; i++) {
                if (i > 0) {
                    put(',');
                }
                label(labels.getPrometheusName(i), labels.getValue(i), i);
            }
            if (extra != null) {
                if (n > 0) {
                    put(',');
                }
                ascii(extra);
                put('=');
                put('"');
                number(extraValue);
                put('"');
            }
            put('}');
        }
        put(' ');
    }

    private void put(char c) {
        if (len == buf.length) {
            room(1);
        }
        buf[len++] = (byte) c;
    }

    /**
     * {@code name="value"}. The last pair written at each of the first positions is remembered by
     * identity and its bytes copied when the next series has the same: a family's series share
     * their label name strings and many of their values (device, port).
     */
    private void label(String name, String value, int i) {
        if (i >= MEMO) {
            bytes(name(name, false));
            pair(value);
            return;
        }
        if (names[i] == name && values[i] == value) {
            int n = ends[i] - starts[i];
            room(n);
            System.arraycopy(buf, starts[i], buf, len, n);
            len += n;
            return;
        }
        if (names[i] != name) {
            names[i] = name;
            nameBytes[i] = name(name, false);
        }
        int start = len;
        bytes(nameBytes[i]);
        pair(value);
        values[i] = value;
        starts[i] = start;
        ends[i] = len;
    }

    private void pair(String value) {
        put('=');
        put('"');
        text(value, true);
        put('"');
    }

    private void end(boolean exemplar) {
        if (exemplar) {
            throw UNSUPPORTED;
        }
        put('\n');
    }

    /** A value as client_java writes it: Double.toString, with +Inf and -Inf; integral ones without it. */
    private void number(double v) {
        long l = (long) v;
        if (l == v && Math.abs(v) < 0x1p53 && Double.doubleToRawLongBits(v) != NEGATIVE_ZERO) {
            if (Math.abs(v) < PLAIN_BELOW) {
                integer(l);
                put('.');
                put('0');
            } else {
                scientific(l);
            }
        } else if (v == Double.POSITIVE_INFINITY) {
            ascii("+Inf");
        } else if (v == Double.NEGATIVE_INFINITY) {
            ascii("-Inf");
        } else {
            ascii(Double.toString(v));
        }
    }

    /** An integral value of 1e7 and above as Double.toString writes it: "1.2345E7". */
    private void scientific(long v) {
        room(24);
        if (v < 0) {
            buf[len++] = '-';
            v = -v;
        }
        int n = 0;
        for (long x = v; x > 0; x /= 10) {
            digits[n++] = (byte) ('0' + x % 10);
        }
        int last = 0; // the lowest digit that is not a trailing zero
        while (last < n - 1 && digits[last] == '0') {
            last++;
        }
        buf[len++] = digits[n - 1];
        buf[len++] = '.';
        if (last == n - 1) {
            buf[len++] = '0';
        }
        for (int i = n - 2; i >= last; i--) {
            buf[len++] = digits[i];
        }
        buf[len++] = 'E';
        integer(n - 1);
    }

    private void integer(long v) {
        if (v == Long.MIN_VALUE) {
            ascii(Long.toString(v));
            return;
        }
        room(20);
        if (v < 0) {
            buf[len++] = '-';
            v = -v;
        }
        int n = 0;
        do {
            digits[n++] = (byte) ('0' + v % 10);
            v /= 10;
        } while (v > 0);
        while (n > 0) {
            buf[len++] = digits[--n];
        }
    }

    /** A metric (':' allowed) or label name of the legacy character set, as bytes. */
    private static byte[] name(String s, boolean metric) {
        byte[] b = new byte[s.length()];
        for (int i = 0; i < b.length; i++) {
            char c = s.charAt(i);
            if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || i > 0 && c >= '0' && c <= '9' || metric && c == ':') {
                b[i] = (byte) c;
            } else {
                throw UNSUPPORTED;
            }
        }
        if (b.length == 0) {
            throw UNSUPPORTED;
        }
        return b;
    }

    private void bytes(byte[] b) {
        room(b.length);
        System.arraycopy(b, 0, buf, len, b.length);
        len += b.length;
    }

    /**
     * UTF-8, with backslash and newline escaped, and the double quote where {@code quote}. Read
     * through a char array: String.charAt per character is most of the time under C1.
     */
    private void text(String s, boolean quote) {
        int n = s.length();
        if (chars.length < n) {
            chars = new char[Math.max(n, chars.length * 2)];
        }
        s.getChars(0, n, chars, 0);
        room(n);
        char[] cs = chars;
        boolean[] plain = quote ? PLAIN_VALUE : PLAIN_HELP;
        byte[] b = buf;
        int p = len;
        for (int i = 0; i < n; i++) {
            char c = cs[i];
            if (c < 0x80 && plain[c]) {
                b[p++] = (byte) c;
                continue;
            }
            len = p;
            room(n - i + 3);
            if (c == '\\' || c == '\n' || c == '"') {
                buf[len++] = '\\';
                buf[len++] = (byte) (c == '\n' ? 'n' : c);
            } else {
                int end = Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(cs[i + 1]) ? i + 2 : i + 1;
                bytes(s.substring(i, end).getBytes(StandardCharsets.UTF_8)); // a lone surrogate: '?', as client_java's
                i = end - 1;
            }
            b = buf;
            p = len;
        }
        len = p;
    }

    /** A string known to be ASCII. */
    private void ascii(String s) {
        int n = s.length();
        room(n);
        s.getBytes(0, n, buf, len); // ASCII: the deprecated copy is the exact one, and a plain array copy
        len += n;
    }

    /** At least n more bytes of room. */
    private void room(int n) {
        if (len + n > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + n));
        }
    }
}
