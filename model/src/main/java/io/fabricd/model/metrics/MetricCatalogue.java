package io.fabricd.model.metrics;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/** Every family fabricd exports, in one list (the docs' and dashboards' tests read it). */
public final class MetricCatalogue {
    private MetricCatalogue() {
    }

    public static final List<MetricFamily> ALL = Stream.of(PortMetrics.class, NetdevMetrics.class, TopologyMetrics.class,
            FindingMetrics.class, ProbingMetrics.class, AgentMetrics.class).flatMap(MetricCatalogue::declared).toList();

    /** The families a class declares as its public constants: declared once, never listed again. */
    private static Stream<MetricFamily> declared(Class<?> c) {
        return Arrays.stream(c.getFields()).filter(f -> f.getType() == MetricFamily.class).map(f -> {
            try {
                return (MetricFamily) f.get(null);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** The family of a name as it is exposed ({@code _total} or not). */
    public static Optional<MetricFamily> byExposedName(String name) {
        return ALL.stream().filter(f -> f.exposedName().equals(name) || f.name().equals(name)).findFirst();
    }
}
