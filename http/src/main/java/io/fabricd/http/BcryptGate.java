package io.fabricd.http;

import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.net.SocketAddress;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Bounds the bcrypt work of {@link BasicAuth} (~50-100 ms of CPU each), so that a flood of wrong
 * passwords costs the agent at most one core and never the threads or request slots that serve
 * scrapes:
 *
 * <ul>
 *   <li>verifications run on a thread of their own ({@code fabricd-bcrypt}), never on the worker
 *       pool that renders {@code /metrics};</li>
 *   <li>at most {@value #MAX_PENDING} in progress or waiting, from all sources together; one more
 *       is answered 503 at once;</li>
 *   <li>at most one in progress or waiting per source address (an IPv6 address's /64); a second is
 *       answered 429 at once;</li>
 *   <li>a source whose passwords failed {@value #MAX_FAILURES} times within a minute gets 429,
 *       without a bcrypt, until that minute is over.</li>
 * </ul>
 *
 * Refusals carry {@code Retry-After}. The sources are remembered in a bounded table (the least
 * recently seen go first).
 */
final class BcryptGate {
    /**
     * Verifications in progress or waiting, all sources together: at most ~1 s of waiting at cost
     * 10, ~5 s at 12, the highest cost the web config takes (WebConfig.MAX_BCRYPT_COST).
     */
    static final int MAX_PENDING = 16;
    /** Failed verifications from one source within {@link #WINDOW_NANOS} before it is refused without one. */
    static final int MAX_FAILURES = 10;
    static final long WINDOW_NANOS = TimeUnit.MINUTES.toNanos(1);
    private static final int MAX_SOURCES = 4096;

    /** Why a verification was not started: the status (429 or 503), Retry-After in seconds, a one-line message. */
    record Refusal(int status, long retryAfter, String message) {
    }

    /** One source address: a verification of it in progress or waiting, its failures in the current window. */
    private static final class Source {
        boolean busy;
        long windowStart;
        int failures;
    }

    private final WorkerExecutor worker;
    private final LongSupplier clock;
    private final Runnable started;
    private int pending;
    private final Map<String, Source> sources = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Source> e) {
            return size() > MAX_SOURCES;
        }
    };

    /**
     * @param started called for each verification started (counted as a metric)
     * @param clock   nanoseconds, as {@link System#nanoTime()}
     */
    BcryptGate(Vertx vertx, Runnable started, LongSupplier clock) {
        // one thread: bcrypt takes at most one core, whatever the flood
        this.worker = vertx.createSharedWorkerExecutor("fabricd-bcrypt", 1);
        this.started = started;
        this.clock = clock;
    }

    /**
     * Runs {@code check} on the bcrypt thread and hands its answer (false when it threw) to
     * {@code done} on the caller's context; or, beyond the bounds, returns why not at once and runs
     * nothing. Called on the event loop.
     */
    Refusal submit(String source, Callable<Boolean> check, Handler<Boolean> done) {
        long now = clock.getAsLong();
        synchronized (this) {
            Source s = sources.computeIfAbsent(source, k -> new Source());
            long left = WINDOW_NANOS - (now - s.windowStart);
            if (s.failures >= MAX_FAILURES && left > 0) {
                long seconds = Math.max(1, TimeUnit.NANOSECONDS.toSeconds(left + TimeUnit.SECONDS.toNanos(1) - 1));
                return new Refusal(429, seconds, "too many failed logins from " + source + ", try again in " + seconds + " s");
            }
            if (s.busy) {
                return new Refusal(429, 1, "a login from " + source + " is being checked, try again in 1 s");
            }
            if (pending >= MAX_PENDING) {
                return new Refusal(503, 1, "too many logins being checked, try again in 1 s");
            }
            s.busy = true;
            pending++;
        }
        started.run();
        worker.executeBlocking(check, false).onComplete(r -> {
            boolean ok = r.succeeded() && Boolean.TRUE.equals(r.result());
            finished(source, ok);
            done.handle(ok);
        });
        return null;
    }

    private synchronized void finished(String source, boolean ok) {
        pending--;
        Source s = sources.get(source);
        if (s == null) { // forgotten meanwhile (a flood from more sources than the table holds)
            return;
        }
        s.busy = false;
        if (!ok) {
            long now = clock.getAsLong();
            if (s.failures == 0 || now - s.windowStart >= WINDOW_NANOS) {
                s.windowStart = now;
                s.failures = 0;
            }
            s.failures++;
        }
    }

    /** Verifications in progress or waiting. */
    synchronized int pending() {
        return pending;
    }

    /**
     * The source a request is counted against: its address, an IPv6 one's /64 (what one host or
     * customer usually holds); "" when the connection cannot say.
     */
    static String source(SocketAddress remote) {
        String host = remote == null ? null : remote.hostAddress();
        if (host == null || host.isEmpty()) {
            return "";
        }
        if (host.indexOf(':') < 0) {
            return host;
        }
        try {
            byte[] a = InetAddress.getByName(host).getAddress(); // a literal: no name lookup
            if (a.length == 16) {
                return InetAddress.getByAddress(Arrays.copyOf(Arrays.copyOf(a, 8), 16)).getHostAddress() + "/64";
            }
            return InetAddress.getByAddress(a).getHostAddress();
        } catch (UnknownHostException e) {
            return host;
        }
    }
}
