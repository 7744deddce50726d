package io.fabricd.model.metrics;

import static io.fabricd.model.metrics.MetricFamily.counter;
import static io.fabricd.model.metrics.MetricFamily.gauge;

import io.fabricd.model.metrics.MetricFamily.Type;
import java.util.List;

/** The collection's and the agent's own families: per collector, the build, the collection loop, the HTTP server. */
public final class AgentMetrics {
    private AgentMetrics() {
    }

    public static final MetricFamily COLLECTOR_SUCCESS = gauge("fabric_collector_success", null,
            "1 when the collector ran in the latest collection, 0 when it failed.", "collector");
    public static final MetricFamily COLLECTOR_DURATION = gauge("fabric_collector_duration_seconds", "seconds",
            "Seconds the collector took in the latest collection.", "collector");
    public static final MetricFamily COLLECTOR_READ_ERRORS = gauge("fabric_collector_read_errors", null,
            "Paths the collector could not read or parse in the latest collection.", "collector");
    public static final MetricFamily BUILD_INFO = new MetricFamily("fabric_build_info", Type.INFO, null,
            "The fabricd build: its version, git revision and the Java runtime it runs on (always 1)",
            List.of("version", "revision", "java_version"), null);
    public static final MetricFamily COLLECTION = new MetricFamily("fabric_agent_collection_seconds", Type.SUMMARY, "seconds",
            "Time one whole collection of the host took", List.of(), null);
    public static final MetricFamily COLLECTION_FAILURES = counter("fabric_agent_collection_failures", null,
            "Collections that failed as a whole (the previous result stays served)");
    public static final MetricFamily COLLECTION_RUNNING = gauge("fabric_agent_collection_running_seconds", "seconds",
            "How long the collection in progress has run (0 between collections); past collection.stuck_after the agent is not ready");
    public static final MetricFamily READY = gauge("fabric_agent_ready", null,
            "1 once the first collection finished and while no collection is stuck");
    public static final MetricFamily HTTP_CONNECTIONS = gauge("fabric_agent_http_connections", null,
            "HTTP connections open (at most http.max_connections)");
    public static final MetricFamily HTTP_CONNECTIONS_SHED = counter("fabric_agent_http_connections_shed", null,
            "HTTP connections closed because http.max_connections were open (never-used ones of unknown sources first), "
                    + "or because answers their clients left unread held more than the budget sized from the heap");
    public static final MetricFamily HTTP_CONNECTIONS_REFUSED = counter("fabric_agent_http_connections_refused", null,
            "TCP connections closed at accept beyond the absolute cap sized from the heap (a flood faster than the server "
                    + "closes)");
    public static final MetricFamily HTTP_REQUESTS_REJECTED = counter("fabric_agent_http_requests_rejected", null,
            "HTTP requests answered 503 because http.max_requests were in flight");
    public static final MetricFamily HTTP_AUTH_FAILURES = counter("fabric_agent_http_auth_failures", null,
            "HTTP requests refused 401 for a missing or wrong user and password (web config basic_auth_users)");
    public static final MetricFamily HTTP_AUTH_VERIFICATIONS = counter("fabric_agent_http_auth_verifications", null,
            "bcrypt verifications of a user and password the agent did not remember (~50-100 ms of CPU each)");
    public static final MetricFamily HTTP_AUTH_THROTTLED = counter("fabric_agent_http_auth_throttled", null,
            "HTTP requests answered 429 or 503 without a bcrypt verification: their source had one under way or too many failures, "
                    + "or too many were under way");
    public static final MetricFamily HTTP_SIGNED_REFUSED = counter("fabric_agent_http_signed_refused", null,
            "Signed HTTP requests (probe endpoint, bandwidth, preflight) refused 401, by reason: unauthenticated (no valid "
                    + "signature for this agent, or a body other than the signed one), replayed (a request seen before, or signed "
                    + "for another agent)", "reason");
}
