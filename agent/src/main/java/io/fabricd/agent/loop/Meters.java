package io.fabricd.agent.loop;

import io.fabricd.http.HttpMeters;
import io.fabricd.model.metrics.AgentMetrics;
import io.fabricd.model.metrics.MetricFamily;
import io.micrometer.core.instrument.MeterRegistry;

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

    /** The HTTP server's meters in {@code meters}, under the agent's declared names. */
    public static HttpMeters http(MeterRegistry meters) {
        return new HttpMeters(meters, k -> name(family(k)), k -> family(k).help());
    }

    private static MetricFamily family(HttpMeters.Kind k) {
        return switch (k) {
            case CONNECTIONS -> AgentMetrics.HTTP_CONNECTIONS;
            case CONNECTIONS_SHED -> AgentMetrics.HTTP_CONNECTIONS_SHED;
            case CONNECTIONS_REFUSED -> AgentMetrics.HTTP_CONNECTIONS_REFUSED;
            case REQUESTS_REJECTED -> AgentMetrics.HTTP_REQUESTS_REJECTED;
            case AUTH_FAILURES -> AgentMetrics.HTTP_AUTH_FAILURES;
            case AUTH_VERIFICATIONS -> AgentMetrics.HTTP_AUTH_VERIFICATIONS;
            case AUTH_THROTTLED -> AgentMetrics.HTTP_AUTH_THROTTLED;
        };
    }
}
