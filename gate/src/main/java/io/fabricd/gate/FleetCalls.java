package io.fabricd.gate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutorCompletionService;
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
        return run(calls, within, within, Duration.ZERO);
    }

    /**
     * Runs every call of {@code calls} (keyed, in order) and waits for them {@code least}, then on as
     * long as they still end — one in the last {@code quiet} — up to {@code most}: calls slow to end
     * (agents just started on a busy host) get the time while they keep ending, calls that never
     * end (a node that is down) cost {@code least}. A call not done by then is cancelled
     * (interrupted) and its outcome says it ran out of time.
     */
    public <K, T> Map<K, Outcome<T>> run(Map<K, Call<T>> calls, Duration least, Duration most, Duration quiet) {
        List<K> keys = new ArrayList<>(calls.keySet());
        CompletionService<T> done = new ExecutorCompletionService<>(pool);
        List<Future<T>> futures = new ArrayList<>();
        long start = System.nanoTime();
        for (K k : keys) {
            Call<T> c = calls.get(k);
            futures.add(done.submit(c::call));
        }
        long soft = start + least.toNanos();
        long hard = start + Math.max(least.toNanos(), most.toNanos());
        long last = start;
        int ended = 0;
        try {
            while (ended < keys.size()) {
                long now = System.nanoTime();
                long until = now - soft < 0 ? soft : Math.min(hard, last + quiet.toNanos());
                if (until - now <= 0) {
                    break;
                }
                if (done.poll(until - now, TimeUnit.NANOSECONDS) != null) {
                    ended++;
                    last = System.nanoTime();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        futures.forEach(f -> f.cancel(true));
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        Map<K, Outcome<T>> out = new LinkedHashMap<>();
        for (int i = 0; i < keys.size(); i++) {
            out.put(keys.get(i), outcome(futures.get(i), took));
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
