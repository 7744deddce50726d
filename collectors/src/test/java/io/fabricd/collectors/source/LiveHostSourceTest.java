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

    @Test
    void readsRealProcFiles() throws Exception {
        try (LiveHostSource s = new LiveHostSource(Duration.ofSeconds(2))) {
            assertThat(s.readLine("proc/sys/kernel/hostname")).isNotBlank();
            assertThat(s.read("proc/self/status")).contains("Name:");
        }
    }
}
