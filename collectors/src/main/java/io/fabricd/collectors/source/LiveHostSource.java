package io.fabricd.collectors.source;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The running host. Reads go through one worker thread and are bounded in size and time: a sysfs
 * read can block in the driver (a firmware command that never completes), and a collection must
 * still finish. A read that times out fails with ETIMEDOUT; its worker is abandoned (it stays
 * blocked in the kernel) and the path is quarantined - later reads of it fail at once - until that
 * read returns.
 *
 * <p>A whole collection ({@link #collecting}) runs on the worker, and its reads run there directly:
 * handing each read to the worker and waiting for it cost two thread wake-ups per file, about
 * three quarters of a live collection's CPU (the demo host's files: 11.0 ms per collection before,
 * 2.9 ms now; docs/benchmarks.md, eighth session). The waiting thread watches the read in flight instead: when one has taken longer
 * than the timeout, its path is quarantined, the worker abandoned, and the collection run again on a
 * new worker (where that path fails at once), so a hung file still costs one timeout and degrades
 * only itself. An abandoned collection stops as soon as its read returns ({@link Abandoned}). A read
 * from another thread meanwhile waits for the collection on the worker (the agent has none).
 */
public final class LiveHostSource implements HostSource, AutoCloseable {
    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final Map<String, String> REASONS = Map.ofEntries(
            Map.entry("Invalid argument", "EINVAL"),
            Map.entry("No such device", "ENODEV"),
            Map.entry("No such device or address", "ENXIO"),
            Map.entry("Operation not supported", "EOPNOTSUPP"),
            Map.entry("Input/output error", "EIO"),
            Map.entry("Device or resource busy", "EBUSY"),
            Map.entry("Permission denied", "EACCES"),
            Map.entry("Operation not permitted", "EPERM"),
            Map.entry("No such file or directory", "ENOENT"),
            Map.entry("Resource temporarily unavailable", "EAGAIN"),
            Map.entry("Connection timed out", "ETIMEDOUT"),
            Map.entry("Function not implemented", "ENOSYS"),
            Map.entry("Not a directory", "ENOTDIR"),
            Map.entry("Is a directory", "EISDIR"));

    private final Path root;
    private final Duration timeout;
    private final Set<String> hung = ConcurrentHashMap.newKeySet();
    private ExecutorService worker = newWorker();
    private final KeptFiles kept = new KeptFiles(false, System::currentTimeMillis);
    private final String rootPrefix;
    private final io.fabricd.collectors.kernel.KernelQueries kernel = new io.fabricd.collectors.kernel.live.LiveKernel();

    /** The real host: root "/". */
    public LiveHostSource(Duration timeout) {
        this(Path.of("/"), timeout);
    }

    /** Live semantics over another root (tests use a folder with FIFOs and unreadable files). */
    public LiveHostSource(Path root, Duration timeout) {
        this.root = root.toAbsolutePath();
        this.rootPrefix = this.root.toString().endsWith("/") ? this.root.toString() : this.root + "/";
        this.timeout = timeout;
    }

    private static ExecutorService newWorker() {
        return Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "fabricd-read-" + THREADS.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public io.fabricd.collectors.kernel.KernelQueries kernel() {
        return kernel;
    }

    @Override
    public boolean isSnapshot() {
        return false;
    }

    @Override
    public String describe() {
        return root.toString();
    }

    private Path abs(String path) {
        return root.resolve(path.startsWith("/") ? path.substring(1) : path);
    }

    /** A collection running on the worker: its thread and the read it has in flight. */
    private static final class Run {
        final Thread thread;
        volatile String path;
        volatile long since;

        Run(Thread thread) {
            this.thread = thread;
        }
    }

    /**
     * Thrown in an abandoned collection's thread once its hung read returned: it stops there (an
     * Error, so that no collector's handler records it as a failure and goes on).
     */
    static final class Abandoned extends Error {
        Abandoned() {
            super("collection abandoned after a read timed out", null, false, false);
        }
    }

    /** After this many runs of one collection that each hit a hung read, reads are handed off one by one. */
    static final int MAX_RUNS = 8;

    /** The collection running on the worker now; null when none. */
    private volatile Run running;

    /**
     * Runs {@code collection} on the worker with its reads done directly there, watched from this
     * thread; again on a new worker after a read hung (see the class comment).
     */
    @Override
    public <T> T collecting(java.util.function.Supplier<T> collection) {
        if (running != null && running.thread == Thread.currentThread()) {
            return collection.get(); // nested
        }
        long poll = Math.max(10, Math.min(1000, timeout.toMillis() / 2));
        for (int attempt = 0; attempt < MAX_RUNS; attempt++) {
            ExecutorService w;
            synchronized (this) {
                w = worker;
            }
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
            while (true) {
                try {
                    return f.get(poll, TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    Run run = running;
                    long since = run == null ? 0 : run.since;
                    String path = run == null ? null : run.path;
                    if (since != 0 && path != null && System.nanoTime() - since > timeout.toNanos()) {
                        hung.add(path);
                        if (run.since != since) {
                            hung.remove(path); // it returned meanwhile: nothing hung
                            continue;
                        }
                        synchronized (this) {
                            if (running == run) {
                                running = null;
                            }
                            if (worker == w) {
                                w.shutdownNow();
                                worker = newWorker();
                            }
                        }
                        break; // run the collection again; the hung path fails at once now
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    f.cancel(true);
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
        return collection.get();
    }

    /** True while {@code path} is quarantined: a read of it hung and has not returned (tests). */
    boolean quarantined(String path) {
        return hung.contains(path);
    }

    /** The current collection's run when this thread is its worker, else null. */
    private Run direct() {
        Run r = running;
        return r != null && r.thread == Thread.currentThread() ? r : null;
    }

    private <T> T bounded(String path, Callable<T> op) throws HostReadException {
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
                throw mapException(path, e);
            } finally {
                run.since = 0;
                hung.remove(path);
                if (running != run) {
                    throw new Abandoned(); // watched as hung and run again elsewhere: stop here
                }
            }
        }
        ExecutorService w;
        synchronized (this) {
            w = worker;
        }
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
            f.cancel(true);
            synchronized (this) {
                if (worker == w) {
                    w.shutdownNow();
                    worker = newWorker();
                }
            }
            throw new HostReadException(path, "ETIMEDOUT", "no answer within " + timeout.toMillis() + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new HostReadException(path, "EINTR");
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof HostReadException h) {
                throw h;
            }
            throw mapException(path, c);
        }
    }

    static HostReadException mapException(String path, Throwable t) {
        if (t instanceof NoSuchFileException) {
            return new HostReadException(path, "ENOENT");
        }
        if (t instanceof AccessDeniedException) {
            return new HostReadException(path, "EACCES");
        }
        if (t instanceof NotDirectoryException) {
            return new HostReadException(path, "ENOTDIR");
        }
        if (t instanceof FileSystemLoopException) {
            return new HostReadException(path, "ELOOP");
        }
        if (t instanceof FileSystemException fse && fse.getReason() != null) {
            String errno = REASONS.get(fse.getReason());
            return new HostReadException(path, errno != null ? errno : "EIO", fse.getReason());
        }
        String msg = t.getMessage();
        if (msg != null && msg.endsWith(")") && msg.lastIndexOf(" (") >= 0) {
            // java.io's "PATH (Reason)", as FileInputStream reports a failed open
            String errno = REASONS.get(msg.substring(msg.lastIndexOf(" (") + 2, msg.length() - 1));
            if (errno != null) {
                return new HostReadException(path, errno);
            }
        }
        if (msg != null) {
            for (Map.Entry<String, String> e : REASONS.entrySet()) {
                if (msg.contains(e.getKey())) {
                    return new HostReadException(path, e.getValue());
                }
            }
        }
        return new HostReadException(path, "EIO", msg);
    }

    @Override
    public String read(String path) throws HostReadException {
        return bounded(path, () -> readNow(path));
    }

    private String readNow(String path) throws java.io.IOException {
        // the absolute name by concatenation: no Path built and normalized per read
        return kept.read(path, rootPrefix + (path.startsWith("/") ? path.substring(1) : path), path, MAX_FILE_BYTES, true);
    }

    /**
     * Files kept open between collections (sysfs answers ENODEV through a removed device's kept
     * files; renames are caught by the listings StableFacts watches, which close them all), at most
     * a quarter of this process's descriptor limit.
     */
    @Override
    public void keepFilesOpen(int max) {
        kept.limit(KeptFiles.bound(max));
    }

    /** The files kept open (tests). */
    KeptFiles keptFiles() {
        return kept;
    }

    @Override
    public void closeKeptFiles() {
        kept.closeAll();
    }

    /**
     * All reads in one bounded task; if it times out, file by file (so only the hung file fails).
     * Within a collection on the worker, file by file directly, each watched.
     */
    @Override
    public Map<String, Object> readAll(String dir, List<String> names) {
        if (direct() != null) {
            return HostSource.super.readAll(dir, names);
        }
        try {
            return bounded(dir + "/*", () -> {
                Map<String, Object> out = new java.util.LinkedHashMap<>();
                for (String n : names) {
                    String path = dir + "/" + n;
                    try {
                        out.put(n, readNow(path));
                    } catch (HostReadException e) {
                        out.put(n, e);
                    } catch (java.io.IOException e) {
                        out.put(n, mapException(path, e));
                    }
                }
                return out;
            });
        } catch (HostReadException e) {
            return HostSource.super.readAll(dir, names);
        }
    }

    @Override
    public List<String> list(String path) throws HostReadException {
        Path p = abs(path);
        return bounded(path, () -> {
            List<String> names = new ArrayList<>();
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(p)) {
                for (Path e : ds) {
                    names.add(e.getFileName().toString());
                }
            }
            Collections.sort(names);
            return names;
        });
    }

    @Override
    public boolean exists(String path) {
        return Files.exists(abs(path));
    }

    @Override
    public boolean isDirectory(String path) {
        return Files.isDirectory(abs(path));
    }

    @Override
    public String realPath(String path) throws HostReadException {
        try {
            Path real = abs(path).toRealPath();
            Path rootReal = root.toRealPath();
            return rootReal.relativize(real).toString();
        } catch (IOException e) {
            throw mapException(path, e);
        }
    }

    @Override
    public synchronized void close() {
        closeKeptFiles();
        worker.shutdownNow();
    }
}
