package io.fabricd.collectors.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.collectors.CollectorConfig;
import io.fabricd.collectors.Fixtures;
import io.fabricd.collectors.HostCollection;
import io.fabricd.collectors.model.HostModel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Files the live reader keeps open between collections: read again from offset 0, they give what a
 * fresh open gives — in-place changes at once, everything read afresh when the kept identity is
 * dropped — and the model is the one reading everything gives. (Snapshot folders keep no files:
 * every read opens afresh beneath the folder.) The live reader is pointed at fixture copies here,
 * and at this machine's own sysfs.
 */
class KeptFilesTest {
    static final String COUNTER = "sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_data";

    static int kept(LiveHostSource s) {
        return s.keptFiles().size();
    }

    /** A live reader of host-a's snapshot copied to {@code root}, keeping files, with COUNTER read twice (so kept). */
    static LiveHostSource counterKept(Path root) throws Exception {
        Fixtures.copy("host-a-ib", root);
        LiveHostSource s = new LiveHostSource(root, Duration.ofSeconds(2));
        s.keepFilesOpen(100);
        String first = s.read(COUNTER);
        assertThat(kept(s)).as("not kept on its first read").isZero();
        assertThat(s.read(COUNTER)).isEqualTo(first);
        assertThat(kept(s)).isEqualTo(1);
        return s;
    }

    @Test
    void aFileIsKeptFromItsSecondReadAndInPlaceChangesShowAtOnce(@TempDir Path tmp) throws Exception {
        try (LiveHostSource s = counterKept(tmp)) {
            Path file = tmp.resolve(COUNTER).toRealPath();
            Files.writeString(file, "123\n"); // the same file, rewritten (what a counter does)
            assertThat(s.read(COUNTER)).isEqualTo("123\n");
            Files.writeString(file, "98765432109876\n");
            assertThat(s.read(COUNTER)).isEqualTo("98765432109876\n");
            assertThat(kept(s)).isEqualTo(1);
        }
    }

    /**
     * A kept file is a FileChannel, which an interrupt of a thread reading it closes: an interrupted
     * thread (the agent stopping) reads what is there without touching the kept files.
     */
    @Test
    void anInterruptedThreadReadsWithoutClosingTheKeptFiles(@TempDir Path tmp) throws Exception {
        Path file = Files.writeString(tmp.resolve("counter"), "1\n");
        KeptFiles kept = new KeptFiles();
        kept.limit(100);
        String f = file.toString();
        assertThat(kept.read("c", f, "c", 1024, SmallFiles.ANY_SHORT_READ)).isEqualTo("1\n");
        assertThat(kept.read("c", f, "c", 1024, SmallFiles.ANY_SHORT_READ)).isEqualTo("1\n");
        assertThat(kept.size()).isEqualTo(1);
        Files.writeString(file, "77\n");
        Thread.currentThread().interrupt();
        try {
            assertThat(kept.read("c", f, "c", 1024, SmallFiles.ANY_SHORT_READ)).isEqualTo("77\n");
            assertThat(kept.size()).as("the kept file left open").isEqualTo(1);
            assertThat(Thread.currentThread().isInterrupted()).as("the interrupt kept").isTrue();
        } finally {
            Thread.interrupted();
        }
        Files.writeString(file, "78\n");
        assertThat(kept.read("c", f, "c", 1024, SmallFiles.ANY_SHORT_READ)).as("through the kept channel, still open").isEqualTo("78\n");
        assertThat(kept.size()).isEqualTo(1);
        kept.closeAll();
    }

    /** A kept file is read again from offset 0: a file of several chunks whole, a shorter rewrite without the old tail. */
    @Test
    void aKeptFileOfSeveralChunksIsReadWholeAndAShorterRewriteWithoutTheOldTail(@TempDir Path tmp) throws Exception {
        try (LiveHostSource s = counterKept(tmp)) {
            Path file = tmp.resolve(COUNTER).toRealPath();
            String big = "x".repeat(3 * SmallFiles.CHUNK + 123) + "\n";
            Files.writeString(file, big);
            assertThat(s.read(COUNTER)).isEqualTo(big);
            assertThat(s.read(COUNTER)).isEqualTo(big);
            assertThat(kept(s)).isEqualTo(1);
            Files.writeString(file, "42\n");
            assertThat(s.read(COUNTER)).isEqualTo("42\n");
        }
    }

    @Test
    void atMostMaxFilesAreKeptAndTheRestReadAsBefore(@TempDir Path tmp) throws Exception {
        Fixtures.copy("host-a-ib", tmp);
        SnapshotHostSource plain = SnapshotHostSource.open(tmp);
        try (LiveHostSource s = new LiveHostSource(tmp, Duration.ofSeconds(2))) {
            s.keepFilesOpen(3);
            String dir = "sys/class/infiniband/mlx5_0/ports/1/counters";
            List<String> names = plain.list(dir);
            assertThat(names).hasSizeGreaterThan(5);
            for (int i = 0; i < 3; i++) {
                for (String n : names) {
                    assertThat(s.read(dir + "/" + n)).isEqualTo(plain.read(dir + "/" + n));
                }
            }
            assertThat(kept(s)).isEqualTo(3);
            s.closeKeptFiles();
            assertThat(kept(s)).isZero();
        }
    }

    @Test
    void aQuarterOfTheDescriptorLimitAtMost() {
        assertThat(KeptFiles.bound(4096, 1024)).isEqualTo(256);
        assertThat(KeptFiles.bound(4096, 1L << 20)).isEqualTo(4096);
        assertThat(KeptFiles.bound(4096, 0)).as("limit unknown").isEqualTo(4096);
        assertThat(KeptFiles.bound(4096, 3)).isZero();
    }

    static Stream<String> fixtures() {
        return Stream.of("host-a-ib", "host-b-roce", "host-broken", "host-c-rxe", "host-d-topology", "host-e-roce-variants",
                "host-f-big", "real-softroce-6.1");
    }

    /** The agent's loop on the live reader with kept files gives, collection after collection, what reading everything gives. */
    @ParameterizedTest
    @MethodSource("fixtures")
    void theModelIsTheOneReadingEverythingGives(String fixture, @TempDir Path tmp) throws Exception {
        Path root = Fixtures.copy(fixture, tmp);
        HostCollection loop = HostCollection.repeating(CollectorConfig.DEFAULT, Duration.ofMinutes(5));
        List<Path> counters;
        try (Stream<Path> w = Files.walk(root.resolve("sys/devices"))) {
            counters = w.filter(p -> p.getParent().getFileName().toString().endsWith("counters") && Files.isRegularFile(p)).toList();
        } catch (java.nio.file.NoSuchFileException e) {
            counters = List.of();
        }
        try (LiveHostSource s = new LiveHostSource(root, Duration.ofSeconds(5))) {
            s.keepFilesOpen(4096);
            for (int i = 0; i < 4; i++) {
                int n = 0;
                for (Path c : counters) {
                    Files.writeString(c, (1000L * i + n++) + "\n"); // in place, as the kernel's counters move
                }
                HostModel kept = loop.collect(s);
                HostModel fresh;
                try (LiveHostSource once = new LiveHostSource(root, Duration.ofSeconds(5))) {
                    fresh = HostCollection.standard(CollectorConfig.DEFAULT).collect(once);
                }
                assertThat(kept.devices()).isEqualTo(fresh.devices());
                assertThat(kept.netdevs()).isEqualTo(fresh.netdevs());
                assertThat(kept.pci()).isEqualTo(fresh.pci());
                assertThat(kept.gpuNicPaths()).isEqualTo(fresh.gpuNicPaths());
                assertThat(kept.collectors()).extracting(r -> r.errors())
                        .isEqualTo(fresh.collectors().stream().map(r -> r.errors()).toList());
            }
            if (!counters.isEmpty()) {
                assertThat(kept(s)).as("files kept open").isGreaterThan(counters.size() / 2);
            }
        }
    }

    /**
     * This machine's own sysfs: a kept attribute read again from offset 0 is generated anew (the
     * kernel's seq_file restarts at position 0), so a counter moves through a kept descriptor.
     */
    @Test
    void aKeptSysfsAttributeShowsTheKernelsCurrentValue() throws Exception {
        String counter = "sys/class/net/lo/statistics/tx_packets";
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isReadable(Path.of("/" + counter)), "no /sys/class/net/lo here");
        try (LiveHostSource live = new LiveHostSource(Duration.ofSeconds(2))) {
            live.keepFilesOpen(16);
            live.read(counter);
            long before = Long.parseLong(live.readLine(counter).strip()); // second read: now kept
            assertThat(live.keptFiles().size()).isEqualTo(1);
            try (java.net.DatagramSocket socket = new java.net.DatagramSocket()) {
                byte[] b = new byte[8];
                for (int i = 0; i < 20; i++) {
                    socket.send(new java.net.DatagramPacket(b, b.length, java.net.InetAddress.getLoopbackAddress(), 9));
                }
            }
            long after = Long.parseLong(live.readLine(counter).strip());
            assertThat(after).as("read through the kept descriptor").isGreaterThanOrEqualTo(before + 20);
            assertThat(live.keptFiles().size()).isEqualTo(1);
        }
    }

    /** The live reader: no folder checks (sysfs answers ENODEV instead); a dropped identity closes them all. */
    @Test
    void liveFilesAreClosedWhenTheKeptIdentityIsDropped(@TempDir Path tmp) throws Exception {
        Path root = Fixtures.copy("host-d-topology", tmp);
        HostCollection loop = HostCollection.repeating(CollectorConfig.DEFAULT, Duration.ofMinutes(5));
        try (LiveHostSource live = new LiveHostSource(root, Duration.ofSeconds(2))) {
            live.keepFilesOpen(4096);
            loop.collect(live);
            loop.collect(live);
            int open = live.keptFiles().size();
            assertThat(open).isGreaterThan(10);
            Path counter = root.resolve("sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_data").toRealPath();
            Files.writeString(counter, "777\n");
            assertThat(loop.collect(live).devices().get(0).ports().get(0).counters()).containsEntry("port_rcv_data", 777L);
            assertThat(live.keptFiles().size()).isEqualTo(open);

            // the device goes: the listing changes, everything kept is dropped and its files closed
            Path link = root.resolve("sys/class/infiniband/mlx5_0");
            Path target = Files.readSymbolicLink(link);
            Files.delete(link);
            assertThat(loop.collect(live).devices()).isEmpty();
            assertThat(live.keptFiles().size()).as("closed, and not kept again on a first read").isZero();
            Files.createSymbolicLink(link, target);
            loop.collect(live);
            loop.collect(live);
            assertThat(live.keptFiles().size()).isEqualTo(open);
        }
    }
}
