package io.fabricd.probes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The probe key file: refused when it is no file (a pipe would hang the start), warned about when exposed or weak. */
class ProbeKeyFileTest {
    private static final Logger LOG = Logger.getLogger(ProbeKey.class.getName());
    private final List<String> warnings = new ArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            warnings.add(r.getMessage());
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void listen() {
        LOG.addHandler(capture);
        LOG.setUseParentHandlers(false); // the warnings are this test's subject, not noise for the test log
    }

    @AfterEach
    void stop() {
        LOG.removeHandler(capture);
        LOG.setUseParentHandlers(true);
    }

    private static Path key(Path dir, String text, String mode) throws Exception {
        Path f = dir.resolve("key");
        Files.deleteIfExists(f);
        Files.writeString(f, text);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(mode));
        return f;
    }

    @Test
    void aPrivateRandomKeyIsReadWithoutAWarning(@TempDir Path tmp) throws Exception {
        ProbeKey k = ProbeKey.fromFile(key(tmp, "3f9c2b1e7d6a5f4e8c0b9a1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f\n", "rw-------"));
        assertThat(k.tag("x")).hasSize(ProbeKey.TAG_BYTES);
        assertThat(warnings).isEmpty();
    }

    @Test
    void aKeyOthersCanReadOrAWeakOneIsWarnedAbout(@TempDir Path tmp) throws Exception {
        ProbeKey.fromFile(key(tmp, "3f9c2b1e7d6a5f4e8c0b9a1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f", "rw-r--r--"));
        assertThat(warnings).singleElement().asString().contains("can be read by other users (rw-r--r--)", "chmod 600");
        warnings.clear();
        ProbeKey.fromFile(key(tmp, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "rw-------"));
        assertThat(warnings).singleElement().asString().contains("weak key", "1 distinct", "openssl rand -hex 32");
        warnings.clear();
        ProbeKey.fromFile(key(tmp, "0123456789abcdef", "rw-------"));
        assertThat(warnings).singleElement().asString().contains("weak key (16 bytes");
    }

    @Test
    @Timeout(10)
    void aPipeAFolderAHugeOrAnEmptyFileIsRefusedAtOnce(@TempDir Path tmp) throws Exception {
        Path fifo = tmp.resolve("fifo");
        assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
        assertThatThrownBy(() -> ProbeKey.fromFile(fifo)).hasMessageContaining("is not a regular file");
        assertThatThrownBy(() -> ProbeKey.fromFile(tmp)).hasMessageContaining("is a folder");
        assertThatThrownBy(() -> ProbeKey.fromFile(tmp.resolve("nope"))).hasMessageContaining("does not exist");
        Path big = Files.write(tmp.resolve("big"), new byte[1 << 20]);
        assertThatThrownBy(() -> ProbeKey.fromFile(big)).hasMessageContaining("larger than 4096 bytes");
        assertThatThrownBy(() -> ProbeKey.fromFile(key(tmp, " \n", "rw-------"))).hasMessageContaining("is empty");
    }
}
