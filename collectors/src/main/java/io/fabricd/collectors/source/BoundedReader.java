package io.fabricd.collectors.source;

import io.fabricd.collectors.kernel.HostReadException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The live host's reads, bounded in time on one reader thread ({@link LiveHostSource}). A read that
 * times out fails with ETIMEDOUT; the reader thread is abandoned (it stays blocked in the kernel)
 * and the path is quarantined - later reads of it fail at once - until that read returns.
 *
 * <p>A whole collection ({@link #run}) runs on the reader thread, and its reads run there
 * directly: handing each read to the reader and waiting for it cost two thread wake-ups per file,
 * about three quarters of a live collection's CPU (the demo host's files: 11.0 ms per collection
 * with a hand-off per read, 2.9 ms without; docs/benchmarks.md). The waiting thread watches the read in
 * flight instead: when one has taken longer than the timeout, its path is quarantined, the reader
 * abandoned, and the collection run again on a new reader (where that path fails at once), so a
 * hung file still costs one timeout and degrades only itself. An abandoned collection stops as soon
 * as its read returns ({@link CollectionAbandoned}). A read from another thread meanwhile waits for the
 * collection on the reader (the agent has none).
 */
final class BoundedReader implements CollectionRunner, AutoCloseable {
    private static final AtomicInteger THREADS = new AtomicInteger();

    /** After this many runs of one collection that each hit a hung read, reads are handed off one by one. */
    static final int MAX_RUNS = 8;

    private final Duration timeout;
    private final Set<String> hung = ConcurrentHashMap.newKeySet();
    private ThreadPoolExecutor worker = newWorker();
    /** The collection running on the reader now; null when none. */
    private volatile Run running;

    BoundedReader(Duration timeout) {
        this.timeout = timeout;
    }

    /** A collection running on the reader: its thread and the read it has in flight. */
    private static final class Run {
        final Thread thread;
        volatile String path;
        volatile long since;

        Run(Thread thread) {
            this.thread = thread;
        }
    }

    private static ThreadPoolExecutor newWorker() {
        return new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "fabricd-read-" + THREADS.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Stops {@code w} without interrupting its thread: work not begun is cancelled, a read in flight
     * is left to return. Never an interrupt: a read hung in a driver (uninterruptible sleep) ignores
     * it, and the reader thread is abandoned anyway.
     */
    private static void stop(ThreadPoolExecutor w) {
        List<Runnable> queued = new ArrayList<>();
        w.getQueue().drainTo(queued);
        for (Runnable r : queued) {
            if (r instanceof Future<?> f) {
                f.cancel(false);
            }
        }
        w.shutdown();
    }

    private synchronized ThreadPoolExecutor worker() {
        return worker;
    }

    /** Leaves {@code w} to its blocked read and starts a new reader (unless that was done already). */
    private synchronized void abandon(ThreadPoolExecutor w) {
        if (worker == w) {
            stop(w);
            worker = newWorker();
        }
    }

    /**
     * Runs {@code collection} on the reader with its reads done directly there, watched from this
     * thread; again on a new reader after a read hung (see the class comment).
     */
    @Override
    public <T> T run(Supplier<T> collection) {
        if (inCollection()) {
            return collection.get(); // nested
        }
        long poll = Math.max(10, Math.min(1000, timeout.toMillis() / 2));
        for (int attempt = 0; attempt < MAX_RUNS; attempt++) {
            ThreadPoolExecutor w = worker();
            Future<T> f;
            try {
                f = w.submit(() -> {
                    Run run = new Run(Thread.currentThread());
                    running = run;
                    try {
                        return collection.get();
                    } finally {
                        synchronized (this) {
                            if (running == run) {
                                running = null;
                            }
                        }
                    }
                });
            } catch (RuntimeException e) {
                break; // closed: read one by one below (each read then fails as "reader closed")
            }
            Done<T> done = awaitOrAbandon(f, w, poll);
            if (done != null) {
                return done.value();
            }
        }
        return collection.get();
    }

    private record Done<T>(T value) {
    }

    /** {@code f}'s value, or null when its collection hit a hung read and was abandoned. */
    private <T> Done<T> awaitOrAbandon(Future<T> f, ThreadPoolExecutor w, long pollMillis) {
        while (true) {
            try {
                return new Done<>(f.get(pollMillis, TimeUnit.MILLISECONDS));
            } catch (TimeoutException e) {
                Run run = running;
                long since = run == null ? 0 : run.since;
                String path = run == null ? null : run.path;
                if (since == 0 || path == null || System.nanoTime() - since <= timeout.toNanos()) {
                    continue;
                }
                hung.add(path);
                if (run.since != since) {
                    hung.remove(path); // it returned meanwhile: nothing hung
                    continue;
                }
                synchronized (this) {
                    if (running == run) {
                        running = null;
                    }
                }
                abandon(w);
                return null; // run the collection again; the hung path fails at once now
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                f.cancel(false);
                throw new IllegalStateException("interrupted while collecting", e);
            } catch (ExecutionException e) {
                Throwable c = e.getCause();
                if (c instanceof RuntimeException r) {
                    throw r;
                }
                if (c instanceof Error err) {
                    throw err;
                }
                throw new IllegalStateException(c);
            }
        }
    }

    /** True while {@code path} is quarantined: a read of it hung and has not returned. */
    boolean quarantined(String path) {
        return hung.contains(path);
    }

    /** True on the reader thread while it runs a collection: reads are done there directly. */
    boolean inCollection() {
        return direct() != null;
    }

    /** The current collection's run when this thread is its reader, else null. */
    private Run direct() {
        Run r = running;
        return r != null && r.thread == Thread.currentThread() ? r : null;
    }

    /**
     * {@code op} (a read of {@code path}) bounded by the timeout: directly and watched within a
     * collection on the reader, else handed to the reader and waited for.
     */
    <T> T read(String path, Callable<T> op) throws HostReadException {
        if (hung.contains(path)) {
            throw new HostReadException(path, "ETIMEDOUT", "an earlier read of this path has not returned");
        }
        Run run = direct();
        if (run != null) {
            run.path = path;
            run.since = System.nanoTime();
            try {
                return op.call();
            } catch (HostReadException e) {
                throw e;
            } catch (Exception e) {
                throw LiveHostSource.mapException(path, e);
            } finally {
                run.since = 0;
                hung.remove(path);
                if (running != run) {
                    throw new CollectionAbandoned(); // watched as hung and run again elsewhere: stop here
                }
            }
        }
        ThreadPoolExecutor w = worker();
        Future<T> f;
        try {
            f = w.submit(() -> {
                try {
                    return op.call();
                } finally {
                    hung.remove(path);
                }
            });
        } catch (RuntimeException e) {
            throw new HostReadException(path, "EIO", "reader closed");
        }
        try {
            return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            hung.add(path);
            f.cancel(false);
            abandon(w);
            throw new HostReadException(path, "ETIMEDOUT", "no answer within " + timeout.toMillis() + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new HostReadException(path, "EINTR");
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof HostReadException h) {
                throw h;
            }
            throw LiveHostSource.mapException(path, c);
        }
    }

    @Override
    public synchronized void close() {
        stop(worker);
    }
}
