package io.fabricd.model.metrics;

import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/** Every family fabricd exports, in one list (the docs' and dashboards' tests read it). */
public final class MetricCatalogue {
    private MetricCatalogue() {
    }

    public static final List<MetricFamily> ALL = Stream.of(PortMetrics.ALL, NetdevMetrics.ALL, TopologyMetrics.ALL,
            FindingMetrics.ALL, ProbingMetrics.ALL, AgentMetrics.ALL).flatMap(List::stream).toList();

    /** The family of a name as it is exposed ({@code _total} or not). */
    public static Optional<MetricFamily> byExposedName(String name) {
        return ALL.stream().filter(f -> f.exposedName().equals(name) || f.name().equals(name)).findFirst();
    }
}
