package io.fabricd.collectors.source;

import io.fabricd.collectors.kernel.HostReadException;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.collectors.CollectorConfig;
import io.fabricd.collectors.Fixtures;
import io.fabricd.collectors.run.HostCollection;
import io.fabricd.model.CollectorRun;
import io.fabricd.model.HostModel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults of a live host on the live reader: a copy of a real sysfs-format fixture (links
 * kept) read through {@link LiveHostSource}, with a device unplugged between listing the devices
 * and reading them.
 */
class LiveFaultsTest {
    static void copy(Path from, Path to) throws IOException {
        Process p = new ProcessBuilder("cp", "-rP", from.toString() + "/.", to.toString()).inheritIO().start();
        try {
            assertThat(p.waitFor()).isZero();
        } catch (InterruptedException e) {
            throw new IOException(e);
        }
    }

    static void delete(Path p) throws IOException {
        if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> s = Files.walk(p)) {
            for (Path x : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(x);
            }
        }
    }

    @Test
    void aDeviceRemovedBetweenListingAndReadingDegradesOnlyItself(@TempDir Path tmp) throws Exception {
        copy(Fixtures.host("host-e-roce-variants"), tmp);
        Path device = tmp.resolve("sys/class/infiniband/mlx5_1").toRealPath();
        try (LiveHostSource live = new LiveHostSource(tmp, Duration.ofSeconds(2))) {
            HostSource unplugging = new ForwardingHostSource(live) {
                boolean gone;

                @Override
                public List<String> list(String path) throws HostReadException {
                    List<String> names = super.list(path);
                    if (path.equals("sys/class/infiniband") && !gone) {
                        gone = true; // hot-unplug: the class link and the device's folder vanish now
                        try {
                            Files.delete(tmp.resolve("sys/class/infiniband/mlx5_1"));
                            delete(device);
                        } catch (IOException e) {
                            throw new IllegalStateException(e);
                        }
                    }
                    return names;
                }
            };
            HostModel m = HostCollection.standard(CollectorConfig.DEFAULT).collect(unplugging);
            for (CollectorRun run : m.collectors()) {
                assertThat(run.errors()).as(run.name()).noneMatch(e -> e.error().startsWith("collector failed"));
            }
            CollectorRun rdma = m.collectors().stream().filter(r -> r.name().equals("rdma")).findFirst().orElseThrow();
            assertThat(rdma.errors()).anyMatch(e -> e.path().contains("mlx5_1") && e.error().contains("ENOENT"));
            assertThat(rdma.errors()).noneMatch(e -> e.path().contains("mlx5_0") || e.path().contains("mlx5_2"));
            assertThat(m.devices()).extracting(d -> d.name()).contains("mlx5_0", "mlx5_2", "rxe0");
            assertThat(m.devices().stream().filter(d -> !d.name().equals("mlx5_1")).flatMap(d -> d.ports().stream()))
                    .allSatisfy(p -> assertThat(p.state()).isNotNull());
        }
    }

    @Test
    @Timeout(60) // a read left unbounded would hang here
    void aCounterThatHangsCostsOneTimeoutAndOnlyItself(@TempDir Path tmp) throws Exception {
        copy(Fixtures.host("host-a-ib"), tmp);
        Path counters = tmp.resolve("sys/class/infiniband/mlx5_0/ports/1/counters").toRealPath();
        Files.delete(counters.resolve("symbol_error"));
        // a FIFO without a writer blocks its reader, as a counter read stuck in a driver would
        Process p = new ProcessBuilder("mkfifo", counters.resolve("symbol_error").toString()).start();
        assertThat(p.waitFor()).isZero();
        HostModel whole = HostCollection.standard(CollectorConfig.DEFAULT).collect(SnapshotHostSource.open(Fixtures.host("host-a-ib")));
        try (LiveHostSource live = new LiveHostSource(tmp, Duration.ofMillis(300))) {
            HostCollection loop = HostCollection.repeating(CollectorConfig.DEFAULT, Duration.ofMinutes(10), live.runner());
            for (int i = 0; i < 3; i++) {
                long t0 = System.nanoTime();
                HostModel m = loop.collect(live);
                assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("collection %d", i).isLessThan(Duration.ofSeconds(10));
                CollectorRun rdma = m.collectors().stream().filter(r -> r.name().equals("rdma")).findFirst().orElseThrow();
                assertThat(rdma.errors()).as("collection %d", i)
                        .anySatisfy(e -> assertThat(e.path()).endsWith("counters/symbol_error"))
                        .allSatisfy(e -> assertThat(e.error()).contains("ETIMEDOUT"));
                // every other counter of the port, read as from the fixture
                Map<String, Long> expected = new TreeMap<>(whole.devices().get(0).ports().get(0).counters());
                expected.remove("symbol_error");
                assertThat(m.devices().get(0).ports().get(0).counters()).as("collection %d", i).isEqualTo(expected);
            }
            assertThat(live.quarantined("sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error")).isTrue();
        }
    }
}
