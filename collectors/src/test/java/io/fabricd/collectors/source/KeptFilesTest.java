package io.fabricd.collectors.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabricd.collectors.CollectorConfig;
import io.fabricd.collectors.Fixtures;
import io.fabricd.collectors.HostCollection;
import io.fabricd.collectors.model.HostModel;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Files kept open between collections (issue 7): read again from offset 0, they give what a fresh
 * open gives — in-place changes at once, a deleted or replaced file at the next collection (snapshot
 * folders are checked once per collection), everything read afresh when the kept identity is
 * dropped — and the model is the one reading everything gives.
 */
class KeptFilesTest {
    static final String COUNTER = "sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_data";

    /** A copy of a fixture whose folders last changed an hour ago (files are kept only in quiet folders). */
    static Path quietCopy(String fixture, Path tmp) throws Exception {
        Fixtures.copy(fixture, tmp);
        age(tmp);
        return tmp;
    }

    static void age(Path root) throws IOException {
        FileTime hourAgo = FileTime.fromMillis(System.currentTimeMillis() - 3_600_000);
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                Files.setLastModifiedTime(dir, hourAgo);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    static int kept(SnapshotHostSource s) {
        return s.keptFiles().size();
    }

    /** host-a's snapshot in a quiet copy under {@code root}, keeping files, with COUNTER read in two collections (so kept). */
    static SnapshotHostSource counterKept(Path root) throws Exception {
        quietCopy("host-a-ib", root);
        SnapshotHostSource s = SnapshotHostSource.open(root);
        s.keepFilesOpen(100);
        String first = s.read(COUNTER);
        assertThat(kept(s)).as("not kept on its first read").isZero();
        s.collectionStarts();
        assertThat(s.read(COUNTER)).isEqualTo(first);
        assertThat(kept(s)).isEqualTo(1);
        return s;
    }

    @Test
    void aFileIsKeptFromItsSecondReadAndInPlaceChangesShowAtOnce(@TempDir Path tmp) throws Exception {
        Path root = tmp;
        SnapshotHostSource s = counterKept(root);

        Path file = root.resolve(COUNTER).toRealPath();
        Files.writeString(file, "123\n"); // the same file, rewritten (what a counter does)
        assertThat(s.read(COUNTER)).isEqualTo("123\n");
        Files.writeString(file, "98765432109876\n");
        s.collectionStarts();
        assertThat(s.read(COUNTER)).isEqualTo("98765432109876\n");
        assertThat(kept(s)).isEqualTo(1);
    }

    /**
     * A kept file is a FileChannel, which an interrupt of a thread reading it closes: an interrupted
     * thread (the agent stopping) reads what is there without touching the kept files.
     */
    @Test
    void anInterruptedThreadReadsWithoutClosingTheKeptFiles(@TempDir Path tmp) throws Exception {
        Path root = tmp;
        SnapshotHostSource s = counterKept(root);
        String first = s.read(COUNTER);
        Files.writeString(root.resolve(COUNTER).toRealPath(), "77\n");
        Thread.currentThread().interrupt();
        try {
            assertThat(s.read(COUNTER)).isEqualTo("77\n");
            assertThat(kept(s)).as("the kept file left open").isEqualTo(1);
            assertThat(Thread.currentThread().isInterrupted()).as("the interrupt kept").isTrue();
        } finally {
            Thread.interrupted();
        }
        assertThat(s.read(COUNTER)).isEqualTo("77\n");
        assertThat(first).isNotEqualTo("77\n");
    }

    /** A kept file is read again from offset 0: a file of several chunks whole, a shorter rewrite without the old tail. */
    @Test
    void aKeptFileOfSeveralChunksIsReadWholeAndAShorterRewriteWithoutTheOldTail(@TempDir Path tmp) throws Exception {
        Path root = quietCopy("host-a-ib", tmp);
        Path file = root.resolve(COUNTER).toRealPath();
        String big = "x".repeat(3 * SmallFiles.CHUNK + 123) + "\n";
        Files.writeString(file, big);
        age(root);
        SnapshotHostSource s = SnapshotHostSource.open(root);
        s.keepFilesOpen(100);
        assertThat(s.read(COUNTER)).isEqualTo(big);
        s.collectionStarts();
        assertThat(s.read(COUNTER)).isEqualTo(big);
        assertThat(kept(s)).isEqualTo(1);
        assertThat(s.read(COUNTER)).isEqualTo(big);
        Files.writeString(file, "42\n");
        assertThat(s.read(COUNTER)).isEqualTo("42\n");
    }

    @Test
    void aDeletedOrReplacedFileShowsAtTheNextCollection(@TempDir Path tmp) throws Exception {
        Path root = quietCopy("host-a-ib", tmp);
        SnapshotHostSource s = SnapshotHostSource.open(root);
        s.keepFilesOpen(100);
        String other = "sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data";
        for (int i = 0; i < 2; i++) {
            s.collectionStarts();
            s.read(COUNTER);
            s.read(other);
        }
        assertThat(kept(s)).isEqualTo(2);

        // replaced by a rename (a new inode: the kept descriptor still reads the old one)
        Path file = root.resolve(other).toRealPath();
        Path fresh = file.resolveSibling(".new");
        Files.writeString(fresh, "42\n");
        Files.move(fresh, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        s.collectionStarts();
        assertThat(s.read(other)).isEqualTo("42\n");

        // deleted
        Files.delete(root.resolve(COUNTER).toRealPath());
        s.collectionStarts();
        assertThatThrownBy(() -> s.read(COUNTER))
                .isInstanceOfSatisfying(HostReadException.class, e -> assertThat(e.errno()).isEqualTo("ENOENT"));
        assertThat(kept(s)).as("the changed folder's files closed").isZero();
    }

    @Test
    void aWholeDeviceRemovedShowsAtTheNextCollection(@TempDir Path tmp) throws Exception {
        Path root = quietCopy("host-a-ib", tmp);
        SnapshotHostSource s = SnapshotHostSource.open(root);
        s.keepFilesOpen(100);
        s.read(COUNTER);
        s.collectionStarts();
        s.read(COUNTER);
        assertThat(kept(s)).isEqualTo(1);
        Path counters = root.resolve(COUNTER).toRealPath().getParent();
        Path moved = root.resolve("gone");
        Files.move(counters, moved); // the folder itself goes (the file inside is untouched)
        s.collectionStarts();
        assertThatThrownBy(() -> s.read(COUNTER))
                .isInstanceOfSatisfying(HostReadException.class, e -> assertThat(e.errno()).isEqualTo("ENOENT"));
    }

    @Test
    void filesInAFolderChangedMomentsAgoAreNotKept(@TempDir Path tmp) throws Exception {
        Fixtures.copy("host-a-ib", tmp);
        SnapshotHostSource s = SnapshotHostSource.open(tmp);
        s.keepFilesOpen(100);
        for (int i = 0; i < 3; i++) {
            s.collectionStarts();
            assertThat(s.read(COUNTER)).isNotEmpty();
        }
        assertThat(kept(s)).as("a change within the same clock tick as a check would go unseen").isZero();
    }

    @Test
    void atMostMaxFilesAreKeptAndTheRestReadAsBefore(@TempDir Path tmp) throws Exception {
        Path root = quietCopy("host-a-ib", tmp);
        SnapshotHostSource s = SnapshotHostSource.open(root);
        SnapshotHostSource plain = SnapshotHostSource.open(root);
        s.keepFilesOpen(3);
        String dir = "sys/class/infiniband/mlx5_0/ports/1/counters";
        List<String> names = plain.list(dir);
        assertThat(names).hasSizeGreaterThan(5);
        for (int i = 0; i < 3; i++) {
            s.collectionStarts();
            for (String n : names) {
                assertThat(s.read(dir + "/" + n)).isEqualTo(plain.read(dir + "/" + n));
            }
        }
        assertThat(kept(s)).isEqualTo(3);
        s.closeKeptFiles();
        assertThat(kept(s)).isZero();
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

    /** The agent's loop with kept files gives, collection after collection, what reading everything gives. */
    @ParameterizedTest
    @MethodSource("fixtures")
    void theModelIsTheOneReadingEverythingGives(String fixture, @TempDir Path tmp) throws Exception {
        Path root = quietCopy(fixture, tmp);
        SnapshotHostSource s = SnapshotHostSource.open(root);
        s.keepFilesOpen(4096);
        HostCollection loop = HostCollection.repeating(CollectorConfig.DEFAULT, Duration.ofMinutes(5));
        List<Path> counters;
        try (Stream<Path> w = Files.walk(root.resolve("sys/devices"))) {
            counters = w.filter(p -> p.getParent().getFileName().toString().endsWith("counters") && Files.isRegularFile(p)).toList();
        } catch (java.nio.file.NoSuchFileException e) {
            counters = List.of();
        }
        for (int i = 0; i < 4; i++) {
            int n = 0;
            for (Path c : counters) {
                Files.writeString(c, (1000L * i + n++) + "\n"); // in place, as the kernel's counters move
            }
            HostModel kept = loop.collect(s);
            HostModel fresh = HostCollection.standard(CollectorConfig.DEFAULT).collect(SnapshotHostSource.open(root));
            assertThat(kept.devices()).isEqualTo(fresh.devices());
            assertThat(kept.netdevs()).isEqualTo(fresh.netdevs());
            assertThat(kept.pci()).isEqualTo(fresh.pci());
            assertThat(kept.gpuNicPaths()).isEqualTo(fresh.gpuNicPaths());
            assertThat(kept.facts()).isEqualTo(fresh.facts());
            assertThat(kept.collectors()).extracting(r -> r.errors())
                    .isEqualTo(fresh.collectors().stream().map(r -> r.errors()).toList());
        }
        if (!counters.isEmpty()) {
            assertThat(kept(s)).as("files kept open").isGreaterThan(counters.size() / 2);
        }
        s.closeKeptFiles();
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
        Path root = quietCopy("host-d-topology", tmp);
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
