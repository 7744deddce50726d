package io.fabricd.collectors.source;

import io.fabricd.collectors.kernel.HostReadException;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class LiveHostSourceTest {

    @Test
    void aReadThatHangsIsBoundedByTheTimeoutAndQuarantined(@TempDir Path tmp) throws Exception {
        // opening a FIFO without a writer blocks, as a sysfs read stuck in a driver would
        Process p = new ProcessBuilder("mkfifo", tmp.resolve("hang").toString()).start();
        assertThat(p.waitFor()).isZero();
        Files.writeString(tmp.resolve("ok"), "42\n");
        try (LiveHostSource s = new LiveHostSource(tmp, Duration.ofMillis(200))) {
            long t0 = System.nanoTime();
            assertThatThrownBy(() -> s.read("hang"))
                    .isInstanceOfSatisfying(HostReadException.class, e -> assertThat(e.errno()).isEqualTo("ETIMEDOUT"));
            // quarantined: the second read of the same path fails at once
            assertThatThrownBy(() -> s.read("hang"))
                    .isInstanceOfSatisfying(HostReadException.class, e -> assertThat(e.errno()).isEqualTo("ETIMEDOUT"));
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
            // other reads still work on a fresh worker
            assertThat(s.readLine("ok")).isEqualTo("42");
        }
    }

    /** Reads {@code files} as a collection would, recording each read as RUN:FILE in {@code log}. */
    private static Map<String, String> collect(LiveHostSource s, List<String> files,
                                                         AtomicInteger runs, List<String> log) {
        return s.runner().run(() -> {
            int run = runs.incrementAndGet();
            log.add(run + ":" + Thread.currentThread().getName());
            Map<String, String> m = new LinkedHashMap<>();
            for (String f : files) {
                try {
                    m.put(f, s.readLine(f));
                } catch (HostReadException e) {
                    m.put(f, e.errno());
                }
                log.add(run + ":" + f);
            }
            return m;
        });
    }

    @Test
    @Timeout(60) // a read left unbounded would hang here
    void aCollectionReadsOnTheWorkerAndAHungReadCostsOneTimeoutAndOnlyItsFile(@TempDir Path tmp) throws Exception {
        Process p = new ProcessBuilder("mkfifo", tmp.resolve("hang").toString()).start();
        assertThat(p.waitFor()).isZero();
        Files.writeString(tmp.resolve("a"), "1\n");
        Files.writeString(tmp.resolve("b"), "2\n");
        try (LiveHostSource s = new LiveHostSource(tmp, Duration.ofMillis(200))) {
            AtomicInteger runs = new AtomicInteger();
            List<String> log = Collections.synchronizedList(new ArrayList<>());
            long t0 = System.nanoTime();
            assertThat(collect(s, List.of("a", "hang", "b"), runs, log))
                    .containsExactly(Map.entry("a", "1"), Map.entry("hang", "ETIMEDOUT"), Map.entry("b", "2"));
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
            // run 1 hung on the FIFO and was abandoned; run 2, on a new worker, found it quarantined
            assertThat(runs).hasValue(2);
            assertThat(log).containsSubsequence("1:a", "2:a", "2:hang", "2:b").doesNotContain("1:hang", "1:b");
            assertThat(log.stream().filter(l -> l.matches("\\d:fabricd-read-\\d+"))).hasSize(2);
            assertThat(s.quarantined("hang")).isTrue();
            // the abandoned reader, still blocked opening the FIFO, was not interrupted: an interrupt
            // closes a kept file's channel, and the interrupting thread waits for the hung read
            String first = log.stream().filter(l -> l.startsWith("1:fabricd-read-")).findFirst().orElseThrow().substring(2);
            Thread abandoned = Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(first)).findFirst().orElseThrow();
            assertThat(abandoned.isAlive()).isTrue();
            assertThat(abandoned.isInterrupted()).as("abandoned reader interrupted").isFalse();

            // the next collection: the quarantined path fails at once, one run
            runs.set(0);
            assertThat(collect(s, List.of("a", "hang", "b"), runs, log)).containsEntry("hang", "ETIMEDOUT").containsEntry("b", "2");
            assertThat(runs).hasValue(1);

            // the hung read returns (a writer opens the FIFO): the quarantine ends and the abandoned
            // run stops right there, reading nothing more
            log.clear();
            try (Writer w = Files.newBufferedWriter(tmp.resolve("hang"))) {
                w.write("9\n");
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (s.quarantined("hang") && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(s.quarantined("hang")).isFalse();
            Thread.sleep(100);
            assertThat(log).isEmpty();
            // reads outside a collection are still bounded one by one
            assertThat(s.readLine("b")).isEqualTo("2");
        }
    }

    @Test
    @Timeout(60) // a read left unbounded would hang here
    void readEachInACollectionReadsFileByFileAndOnlyTheHungFileFails(@TempDir Path tmp) throws Exception {
        Files.createDirectories(tmp.resolve("d"));
        Process p = new ProcessBuilder("mkfifo", tmp.resolve("d/hang").toString()).start();
        assertThat(p.waitFor()).isZero();
        Files.writeString(tmp.resolve("d/a"), "1\n");
        Files.writeString(tmp.resolve("d/z"), "3\n");
        try (LiveHostSource s = new LiveHostSource(tmp, Duration.ofMillis(200))) {
            Map<String, FileRead> got = s.runner().run(() -> s.readEach("d", List.of("a", "hang", "z")));
            assertThat(got.get("a").text()).isEqualTo("1\n");
            assertThat(got.get("z").text()).isEqualTo("3\n");
            assertThat(got.get("hang").failure().errno()).isEqualTo("ETIMEDOUT");
            assertThat(s.quarantined("d/hang")).isTrue();
        }
    }

    @Test
    void mapsFailuresToErrnoNames(@TempDir Path tmp) throws Exception {
        Files.createDirectories(tmp.resolve("d"));
        Files.createSymbolicLink(tmp.resolve("link"), Path.of("d"));
        try (LiveHostSource s = new LiveHostSource(tmp, Duration.ofSeconds(2))) {
            assertThatThrownBy(() -> s.read("missing"))
                    .isInstanceOfSatisfying(HostReadException.class, e -> assertThat(e.errno()).isEqualTo("ENOENT"));
            assertThatThrownBy(() -> s.read("d"))
                    .isInstanceOfSatisfying(HostReadException.class, e -> assertThat(e.errno()).isEqualTo("EISDIR"));
            assertThat(s.realPath("link")).isEqualTo("d");
            assertThat(s.isDirectory("link")).isTrue();
            assertThat(s.list("")).containsExactly("d", "link");
            assertThat(s.isSnapshot()).isFalse();
        }
    }

    /**
     * A sysfs read shorter than a page ends the file (SmallFiles.SYSFS_PAGE); a binary attribute is
     * read a page at a time, so its reads go on past full pages: read whole, opened and kept.
     */
    @Test
    void readsBinarySysfsAttributesPastTheirFirstPage() throws Exception {
        Path btf = Path.of("/sys/kernel/btf/vmlinux");
        Optional<Path> config;
        try (Stream<Path> devices = Files.list(Path.of("/sys/bus/pci/devices"))) {
            config = devices.map(d -> d.resolve("config")).filter(Files::isReadable).filter(f -> {
                try {
                    return Files.size(f) == 4096;
                } catch (IOException e) {
                    return false;
                }
            }).findFirst();
        }
        Assumptions.assumeTrue(Files.isReadable(btf) && config.isPresent(), "no binary sysfs attributes here");
        String rel = "sys" + config.get().toString().substring("/sys".length());
        String whole = new String(Files.readAllBytes(config.get()), StandardCharsets.UTF_8);
        try (LiveHostSource s = new LiveHostSource(Path.of("/"), Duration.ofSeconds(5))) {
            for (int i = 0; i < 2; i++) {
                assertThat(s.read(rel)).isEqualTo(whole); // exactly a page (as root): one more read finds the end
                // megabytes, a page per read: past the first page to the size limit
                assertThatThrownBy(() -> s.read("sys/kernel/btf/vmlinux"))
                        .isInstanceOfSatisfying(HostReadException.class, e -> assertThat(e.errno()).isEqualTo("EFBIG"));
            }
        }
    }

    @Test
    void readsRealProcFiles() throws Exception {
        try (LiveHostSource s = new LiveHostSource(Path.of("/"), Duration.ofSeconds(2))) {
            assertThat(s.readLine("proc/sys/kernel/hostname")).isNotBlank();
            assertThat(s.read("proc/self/status")).contains("Name:");
        }
    }

    /**
     * This machine's own PCI functions: {@code config} read through the live source is what the
     * kernel gives (64 bytes unprivileged, 256 or 4096 as root), and starts with the vendor id that
     * the {@code vendor} attribute names.
     */
    @Test
    void readsAPciConfigSpaceAsTheKernelGivesIt() throws Exception {
        Path bus = Path.of("/sys/bus/pci/devices");
        Assumptions.assumeTrue(Files.isDirectory(bus), "no PCI bus in sysfs here");
        List<Path> functions;
        try (Stream<Path> s = Files.list(bus)) {
            functions = s.sorted().limit(8).toList();
        }
        Assumptions.assumeFalse(functions.isEmpty(), "no PCI function here");
        try (LiveHostSource live = new LiveHostSource(Path.of("/"), Duration.ofSeconds(2))) {
            for (Path f : functions) {
                String rel = "sys/bus/pci/devices/" + f.getFileName() + "/config";
                byte[] config = live.readBytes(rel);
                assertThat(config).as(rel).hasSizeBetween(64, 4096);
                assertThat(config).as(rel).isEqualTo(Files.readAllBytes(Path.of("/" + rel)));
                int vendor = (config[0] & 0xff) | (config[1] & 0xff) << 8;
                assertThat(String.format("0x%04x", vendor)).isEqualTo(live.readLine("sys/bus/pci/devices/" + f.getFileName() + "/vendor"));
            }
        }
    }
}
