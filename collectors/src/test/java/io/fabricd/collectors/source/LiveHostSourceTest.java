package io.fabricd.collectors.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
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
    private static java.util.Map<String, String> collect(LiveHostSource s, java.util.List<String> files,
                                                         java.util.concurrent.atomic.AtomicInteger runs, java.util.List<String> log) {
        return s.collecting(() -> {
            int run = runs.incrementAndGet();
            log.add(run + ":" + Thread.currentThread().getName());
            java.util.Map<String, String> m = new java.util.LinkedHashMap<>();
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
    @org.junit.jupiter.api.Timeout(60) // a read left unbounded would hang here
    void aCollectionReadsOnTheWorkerAndAHungReadCostsOneTimeoutAndOnlyItsFile(@TempDir Path tmp) throws Exception {
        Process p = new ProcessBuilder("mkfifo", tmp.resolve("hang").toString()).start();
        assertThat(p.waitFor()).isZero();
        Files.writeString(tmp.resolve("a"), "1\n");
        Files.writeString(tmp.resolve("b"), "2\n");
        try (LiveHostSource s = new LiveHostSource(tmp, Duration.ofMillis(200))) {
            java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();
            java.util.List<String> log = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
            long t0 = System.nanoTime();
            assertThat(collect(s, java.util.List.of("a", "hang", "b"), runs, log))
                    .containsExactly(java.util.Map.entry("a", "1"), java.util.Map.entry("hang", "ETIMEDOUT"), java.util.Map.entry("b", "2"));
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
            assertThat(collect(s, java.util.List.of("a", "hang", "b"), runs, log)).containsEntry("hang", "ETIMEDOUT").containsEntry("b", "2");
            assertThat(runs).hasValue(1);

            // the hung read returns (a writer opens the FIFO): the quarantine ends and the abandoned
            // run stops right there, reading nothing more
            log.clear();
            try (java.io.Writer w = Files.newBufferedWriter(tmp.resolve("hang"))) {
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
    @org.junit.jupiter.api.Timeout(60) // a read left unbounded would hang here
    void readEachInACollectionReadsFileByFileAndOnlyTheHungFileFails(@TempDir Path tmp) throws Exception {
        Files.createDirectories(tmp.resolve("d"));
        Process p = new ProcessBuilder("mkfifo", tmp.resolve("d/hang").toString()).start();
        assertThat(p.waitFor()).isZero();
        Files.writeString(tmp.resolve("d/a"), "1\n");
        Files.writeString(tmp.resolve("d/z"), "3\n");
        try (LiveHostSource s = new LiveHostSource(tmp, Duration.ofMillis(200))) {
            java.util.Map<String, FileRead> got = s.collecting(() -> s.readEach("d", java.util.List.of("a", "hang", "z")));
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
        java.util.Optional<Path> config;
        try (java.util.stream.Stream<Path> devices = Files.list(Path.of("/sys/bus/pci/devices"))) {
            config = devices.map(d -> d.resolve("config")).filter(Files::isReadable).filter(f -> {
                try {
                    return Files.size(f) == 4096;
                } catch (java.io.IOException e) {
                    return false;
                }
            }).findFirst();
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isReadable(btf) && config.isPresent(), "no binary sysfs attributes here");
        String rel = "sys" + config.get().toString().substring("/sys".length());
        String whole = new String(Files.readAllBytes(config.get()), java.nio.charset.StandardCharsets.UTF_8);
        try (LiveHostSource s = new LiveHostSource(Duration.ofSeconds(5))) {
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
        try (LiveHostSource s = new LiveHostSource(Duration.ofSeconds(2))) {
            assertThat(s.readLine("proc/sys/kernel/hostname")).isNotBlank();
            assertThat(s.read("proc/self/status")).contains("Name:");
        }
    }
}
