package io.fabricd.probes.bandwidth;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * Waits until the JVM's JIT compiler is idle, so that a measurement does not share a CPU with it.
 * {@code fabricd bw} is a fresh JVM that has just collected the host and talked to the peer: its
 * compiler still has methods queued when the writes begin (in the Soft-RoCE VM, 35 to 60 C1
 * compilations in the first second of a 5 s test, -XX:+PrintCompilation), and on a host with few
 * free cores each one is CPU the kernel's RDMA work does not get.
 */
final class CompilerQuiet {
    /** Compiling nothing for this long counts as idle. */
    static final Duration QUIET = Duration.ofMillis(150);
    private static final long STEP_NANOS = Duration.ofMillis(25).toNanos();

    private CompilerQuiet() {
    }

    /** Waits at most {@code max} for {@link #QUIET} without a compilation; the time waited. */
    static Duration await(Duration max) {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        long start = System.nanoTime();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
            return Duration.ZERO;
        }
        long deadline = start + max.toNanos();
        long total = jit.getTotalCompilationTime();
        long quietSince = start;
        while (System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(STEP_NANOS);
            long now = System.nanoTime();
            long t = jit.getTotalCompilationTime();
            if (t != total) {
                total = t;
                quietSince = now;
            } else if (now - quietSince >= QUIET.toNanos()) {
                break;
            }
        }
        return Duration.ofNanos(System.nanoTime() - start);
    }
}
