package io.fabricd.agent.preflight;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.preflight.NodeInput;
import io.fabricd.probes.peers.EndpointClient;
import java.io.IOException;
import java.util.Map;

/**
 * The preflight requests to one agent (docs/preflight.md, "What the agents answer"), signed with the
 * fabric's key through {@link EndpointClient}, and what a failure means for the node: not
 * reachable, refused, or an answer that is not a fabricd agent's.
 */
final class AgentAsk {
    static final String STATE = "/api/v1/preflight/state";
    static final String PROBE = "/api/v1/preflight/probe";
    static final String BANDWIDTH = "/api/v1/preflight/bandwidth";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final EndpointClient client;

    AgentAsk(EndpointClient client) {
        this.client = client;
    }

    /** POSTs {@code body} as JSON to {@code path} of the agent at {@code address}; its answer's bytes. */
    byte[] post(String address, String path, Map<String, Object> body) throws IOException {
        return client.post(address, path, JSON.writeValueAsBytes(body));
    }

    /**
     * Posts and, while the agent answers busy (409: a test of its own runs; 429: its rate), asks
     * again every second until {@code deadline} (System.nanoTime).
     */
    byte[] postUntilFree(String address, String path, Map<String, Object> body, long deadline) throws IOException, InterruptedException {
        while (true) {
            try {
                return post(address, path, body);
            } catch (IOException e) {
                if (!busy(e) || deadline - System.nanoTime() < 1_500_000_000L) {
                    throw e;
                }
                Thread.sleep(1000);
            }
        }
    }

    /** Whether the agent answered busy: it will do it later. */
    static boolean busy(IOException e) {
        String m = String.valueOf(e.getMessage());
        return m.contains(" answered 409") || m.contains(" answered 429");
    }

    /** Which kind of failure one of {@link EndpointClient}'s messages is. */
    static NodeInput.State state(String error) {
        String m = String.valueOf(error);
        if (m.contains("refused the probe key") || m.contains(" answered ")) {
            return NodeInput.State.REFUSED;
        }
        if (m.contains("not signed with the probe key") || m.contains("not JSON") || m.contains("not a fabricd agent")
                || m.contains("larger than")) {
            return NodeInput.State.GARBAGE;
        }
        if (m.startsWith("cannot reach ") && !(m.contains("connection refused") || m.contains("cannot resolve") || m.contains("within")
                || m.contains("timed out"))) {
            return NodeInput.State.GARBAGE; // it answered, but not in HTTP
        }
        return NodeInput.State.UNREACHABLE;
    }
}
