package io.fabricd.agent.preflight;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Calls to many agents at once on a bounded pool, every one ended by the phase's deadline (a call
 * still running then is cancelled and says so). Each call's outcome is its value or one line saying
 * what went wrong.
 */
public final class FleetCalls implements AutoCloseable {
    /**
     * Calls in flight at once: a thousand nodes in two waves, and half of the usual 1024 file
     * descriptors. The state requests too: an answer takes milliseconds from a warm agent but seconds
     * from one just started on a busy host, and a request to a node that is down holds its place
     * until the phase ends, so a smaller pool would leave the set's last nodes unasked.
     */
    public static final int PARALLEL = 512;

    /** What one call gave: a value, or why not (one line) and what the call threw (null when it threw nothing). */
    public record Outcome<T>(T value, String error, Throwable cause) {
        public Outcome(T value, String error) {
            this(value, error, null);
        }

        public boolean ok() {
            return error == null;
        }
    }

    /** A call that may fail with a message for the user. */
    @FunctionalInterface
    public interface Call<T> {
        T call() throws Exception;
    }

    private final ExecutorService pool;

    /** At most {@code parallel} calls in flight. */
    public FleetCalls(int parallel) {
        AtomicInteger n = new AtomicInteger();
        ThreadFactory f = r -> {
            Thread t = new Thread(r, "preflight-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
        this.pool = Executors.newFixedThreadPool(parallel, f);
    }

    /**
     * Runs every call of {@code calls} (keyed, in order) and waits at most {@code within}; a call not
     * done by then is cancelled (interrupted) and its outcome says it ran out of time.
     */
    public <K, T> Map<K, Outcome<T>> run(Map<K, Call<T>> calls, Duration within) {
        List<K> keys = new ArrayList<>(calls.keySet());
        List<Callable<T>> tasks = new ArrayList<>();
        for (K k : keys) {
            Call<T> c = calls.get(k);
            tasks.add(c::call);
        }
        Map<K, Outcome<T>> out = new LinkedHashMap<>();
        List<Future<T>> futures;
        try {
            futures = pool.invokeAll(tasks, Math.max(1, within.toMillis()), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            for (K k : keys) {
                out.put(k, new Outcome<>(null, "interrupted"));
            }
            return out;
        }
        for (int i = 0; i < keys.size(); i++) {
            out.put(keys.get(i), outcome(futures.get(i), within));
        }
        return out;
    }

    private static <T> Outcome<T> outcome(Future<T> f, Duration within) {
        try {
            return new Outcome<>(f.get(), null);
        } catch (CancellationException e) {
            return new Outcome<>(null, "no answer within the time budget (" + Texts.seconds(within) + " for this phase; --timeout)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Outcome<>(null, "interrupted");
        } catch (ExecutionException e) {
            Throwable c = e.getCause() == null ? e : e.getCause();
            String m = c.getMessage();
            return new Outcome<>(null, Texts.line(m == null || m.isBlank() ? c.getClass().getSimpleName() : m), c);
        }
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }
}
