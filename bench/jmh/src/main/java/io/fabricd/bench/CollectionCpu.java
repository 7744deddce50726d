package io.fabricd.bench;

import io.fabricd.collectors.CollectorConfig;
import io.fabricd.collectors.HostCollection;
import io.fabricd.collectors.StableFacts;
import io.fabricd.collectors.source.HostSource;
import io.fabricd.collectors.source.LiveHostSource;
import io.fabricd.collectors.source.SnapshotHostSource;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Process CPU per collection of every collector over a host folder, read with a live host's
 * semantics ({@code live}: LiveHostSource, reads bounded by its reader thread) or a snapshot's
 * ({@code snapshot}), files kept open as the agent keeps them; back to back after a warm-up. JMH
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
        HostCollection c = HostCollection.repeating(CollectorConfig.DEFAULT, StableFacts.DEFAULT_REFRESH);
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        for (int i = 0; i < warm; i++) {
            c.collect(src);
        }
        long cpu0 = os.getProcessCpuTime();
        long wall0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            c.collect(src);
        }
        long cpu = os.getProcessCpuTime() - cpu0;
        long wall = System.nanoTime() - wall0;
        System.out.printf("%s %s: %.3f ms CPU, %.3f ms wall per collection (%d after %d)%n", args[3], root, cpu / 1e6 / n,
                wall / 1e6 / n, n, warm);
        System.exit(0);
    }

    private CollectionCpu() {
    }
}
