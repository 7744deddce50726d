package io.fabricd.agent;

import io.fabricd.model.metrics.MetricFamily;

/**
 * The agent's own families are Micrometer meters (Vert.x reports through Micrometer too); their
 * Prometheus names are the declared ones ({@code io.fabricd.model.metrics.AgentMetrics}).
 */
public final class Meters {
    private Meters() {
    }

    /**
     * The Micrometer name whose Prometheus name is the family's: dotted, without the unit, which
     * Micrometer appends from the meter's base unit ({@code fabric_agent_collection_running_seconds}
     * is gauge {@code fabric.agent.collection.running} in seconds).
     */
    public static String name(MetricFamily f) {
        String n = f.unit() == null ? f.name() : f.name().substring(0, f.name().length() - f.unit().length() - 1);
        return n.replace('_', '.');
    }
}
