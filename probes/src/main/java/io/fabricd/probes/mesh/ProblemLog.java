package io.fabricd.probes.mesh;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * Logs a probing problem once, not every round or retry: the same message again only after ten
 * minutes. Remembers the last 64 messages.
 */
final class ProblemLog implements Consumer<String> {
    private static final Logger LOG = Logger.getLogger(ProbeService.class.getName());
    private static final long QUIET_NANOS = TimeUnit.MINUTES.toNanos(10);

    /** Message → when it was last logged, least recently logged first. */
    private final Map<String, Long> reported = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
            return size() > 64;
        }
    };

    @Override
    public void accept(String message) {
        long now = System.nanoTime();
        synchronized (reported) {
            Long last = reported.get(message);
            if (last != null && now - last < QUIET_NANOS) {
                return;
            }
            reported.put(message, now);
        }
        LOG.warning("probe: " + message);
    }
}
