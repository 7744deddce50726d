package io.fabricd.bench;

import com.sun.management.OperatingSystemMXBean;
import com.sun.management.ThreadMXBean;

import io.fabricd.collectors.CollectorConfig;
import io.fabricd.collectors.run.HostCollection;
import io.fabricd.collectors.source.CollectionRunner;
import io.fabricd.collectors.source.HostSource;
import io.fabricd.collectors.source.LiveHostSource;
import io.fabricd.collectors.source.SnapshotHostSource;
import io.fabricd.collectors.source.StableReads;
import io.fabricd.diagnosis.run.Diagnosis;
import io.fabricd.diagnosis.run.Report;
import io.fabricd.exporters.FabricMetrics;
import io.fabricd.model.HostModel;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Process CPU (and heap allocated, by phase) per collection, checks and families included, of every collector over a host folder, read with a live host's
 * semantics ({@code live}: LiveHostSource, reads bounded by its reader thread) or a snapshot's
 * ({@code snapshot}); back to back after a warm-up, each phase also timed on this thread. JMH
 * measures wall time; this counts the CPU of every thread (the reader thread's included).
 *
 * <pre>
 *   java -XX:+UseSerialGC -Xms16m -Xmx96m -Xmn3m -XX:TieredStopAtLevel=1 \
 *     -cp bench/jmh/target/benchmarks.jar io.fabricd.bench.CollectionCpu /tmp/demo-snap 2000 1000 live
 * </pre>
 */
public final class CollectionCpu {
    public static void main(String[] args) throws Exception {
        if (args.length != 4 || !(args[3].equals("live") || args[3].equals("snapshot"))) {
            System.err.println("usage: CollectionCpu HOST_FOLDER WARMUP_COLLECTIONS COLLECTIONS live|snapshot");
            System.exit(2);
        }
        Path root = Path.of(args[0]);
        int warm = Integer.parseInt(args[1]);
        int n = Integer.parseInt(args[2]);
        HostSource src = args[3].equals("live") ? new LiveHostSource(root, Duration.ofSeconds(2)) : SnapshotHostSource.open(root);
        HostCollection c = HostCollection.repeating(CollectorConfig.DEFAULT, StableReads.DEFAULT_REFRESH,
                src instanceof LiveHostSource live ? live.runner() : CollectionRunner.CALLER);
        OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        FabricMetrics metrics = new FabricMetrics();
        for (int i = 0; i < warm; i++) {
            metrics.update(c.collect(src));
        }
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        long alloc0 = threads.getCurrentThreadAllocatedBytes();
        long cpu0 = os.getProcessCpuTime();
        long wall0 = System.nanoTime();
        long[] phase = new long[3];
        long[] phaseCpu = new long[3];
        HostModel previous = null;
        for (int i = 0; i < n; i++) {
            long a = threads.getCurrentThreadAllocatedBytes();
            long ta = threads.getCurrentThreadCpuTime();
            HostModel m = c.collect(src);
            long b = threads.getCurrentThreadAllocatedBytes();
            long tb = threads.getCurrentThreadCpuTime();
            Report r = Diagnosis.run(m, previous);
            long d = threads.getCurrentThreadAllocatedBytes();
            long td = threads.getCurrentThreadCpuTime();
            metrics.update(m, r.findings());
            phaseCpu[0] += tb - ta;
            phaseCpu[1] += td - tb;
            phaseCpu[2] += threads.getCurrentThreadCpuTime() - td;
            phase[0] += b - a;
            phase[1] += d - b;
            phase[2] += threads.getCurrentThreadAllocatedBytes() - d;
            previous = m;
        }
        long cpu = os.getProcessCpuTime() - cpu0;
        long wall = System.nanoTime() - wall0;
        long alloc = threads.getCurrentThreadAllocatedBytes() - alloc0;
        System.out.printf("%s %s: %.3f ms CPU, %.3f ms wall, %.2f MB allocated (this thread) per collection (%d after %d)%n",
                args[3], root, cpu / 1e6 / n, wall / 1e6 / n, alloc / 1e6 / n, n, warm);
        System.out.printf("allocated per collection: collect %.2f MB, diagnose %.2f MB, families %.2f MB%n", phase[0] / 1e6 / n,
                phase[1] / 1e6 / n, phase[2] / 1e6 / n);
        System.out.printf("CPU per collection (this thread): collect %.3f ms, diagnose %.3f ms, families %.3f ms%n", phaseCpu[0] / 1e6 / n,
                phaseCpu[1] / 1e6 / n, phaseCpu[2] / 1e6 / n);
        System.exit(0);
    }

    private CollectionCpu() {
    }
}
