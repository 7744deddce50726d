package io.fabricd.collectors.source;

import io.fabricd.collectors.kernel.HostReadException;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.FileNotFoundException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How a failed open is told: only a missing file is ENOENT (the snapshot reader retries those). */
class SmallFilesTest {

    @Test
    void readsAFileWhole(@TempDir Path dir) throws Exception {
        Path f = Files.writeString(dir.resolve("rate"), "100 Gb/sec (4X EDR)\n");
        assertThat(SmallFiles.read(f.toString(), "rate", 1024, SmallFiles.ANY_SHORT_READ, StandardCharsets.UTF_8)).isEqualTo("100 Gb/sec (4X EDR)\n");
    }

    @Test
    void aMissingFileIsFileNotFound(@TempDir Path dir) {
        assertThatThrownBy(() -> SmallFiles.read(dir.resolve("gone").toString(), "gone", 1024, SmallFiles.ANY_SHORT_READ, StandardCharsets.UTF_8))
                .isExactlyInstanceOf(FileNotFoundException.class);
    }

    @Test
    void anUnreadableFileIsEaccesNotMissing(@TempDir Path dir) throws Exception {
        Path f = Files.writeString(dir.resolve("secret"), "x\n");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("---------"));
        assumeTrue(!Files.isReadable(f), "root reads a file of mode 000");
        assertThatThrownBy(() -> SmallFiles.read(f.toString(), "secret", 1024, SmallFiles.ANY_SHORT_READ, StandardCharsets.UTF_8))
                .isInstanceOfSatisfying(HostReadException.class, e -> assertThat(e.errno()).isEqualTo("EACCES"));
    }

    /** A write-only sysfs attribute refuses a read open with EACCES, root included (kernfs). */
    @Test
    void aWriteOnlySysfsAttributeIsEacces() {
        Path rescan = Path.of("/sys/bus/pci/rescan");
        assumeTrue(Files.exists(rescan), "no /sys/bus/pci/rescan here");
        assertThatThrownBy(() -> SmallFiles.read(rescan.toString(), "sys/bus/pci/rescan", 4096, SmallFiles.SYSFS_PAGE, StandardCharsets.UTF_8))
                .isInstanceOfSatisfying(HostReadException.class, e -> assertThat(e.errno()).isEqualTo("EACCES"));
    }
}
