package io.fabricd.model.metrics;

import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * One metric family fabricd exports, declared once: the exporters, the probes and the agent build
 * their families from these, and the tests hold docs/metrics.md, docs/spec/interfaces.md, the
 * alert rules and the dashboards to them.
 *
 * @param name       the family's name without {@code _total} (the exposition formats add it to counters)
 * @param type       what kind of family it is
 * @param unit       the base unit the name ends in ({@code seconds}, {@code bytes}, ...); null when none
 * @param help       the HELP text
 * @param labels     the label names every series of the family carries
 * @param moreLabels null when {@code labels} are all; else which labels a series may carry beyond
 *                   them, in words (the finding's subject fields; the peer with
 *                   {@code probe.per_peer_histograms})
 */
public record MetricFamily(String name, Type type, String unit, String help, List<String> labels, String moreLabels) {
    private static final Pattern NAME = Pattern.compile("fabric_[a-z0-9_]+");

    /** The kinds of family, as docs/metrics.md names them. */
    public enum Type {
        GAUGE, COUNTER, HISTOGRAM, SUMMARY, INFO;

        /** The word for it in the docs' tables. */
        public String word() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public MetricFamily {
        labels = List.copyOf(labels);
        if (!NAME.matcher(name).matches() || name.endsWith("_total")) {
            throw new IllegalArgumentException("not a fabricd family name: " + name);
        }
        if (unit != null && !name.endsWith("_" + unit)) {
            throw new IllegalArgumentException(name + ": the name must end in its unit _" + unit);
        }
        if (help == null || help.isBlank()) {
            throw new IllegalArgumentException(name + ": no help text");
        }
    }

    public static MetricFamily gauge(String name, String unit, String help, String... labels) {
        return new MetricFamily(name, Type.GAUGE, unit, help, List.of(labels), null);
    }

    public static MetricFamily counter(String name, String unit, String help, String... labels) {
        return new MetricFamily(name, Type.COUNTER, unit, help, List.of(labels), null);
    }

    /** This family with series that may carry more labels than {@link #labels}, as {@code words} say. */
    public MetricFamily withMoreLabels(String words) {
        return new MetricFamily(name, type, unit, help, labels, words);
    }

    /** The name a series of it has in the text format: counters end in {@code _total}. */
    public String exposedName() {
        return type == Type.COUNTER ? name + "_total" : name;
    }
}
