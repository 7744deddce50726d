package io.fabricd.collectors.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabricd.collectors.Fixtures;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TtarTest {

    @Test
    void extractsProcfsFixturesWithTheirQuirks(@TempDir Path tmp) throws IOException {
        Fixtures.procfs(tmp);
        Path ib = tmp.resolve("sys/class/infiniband");
        assertThat(Files.readString(ib.resolve("mlx5_0/node_guid"))).isEqualTo("0a7f:bc12:45ef:d23b"); // no newline
        assertThat(Files.readString(ib.resolve("mlx4_0/ports/2/link_layer"))).isEqualTo("InfiniBand\n\n");
        assertThat(Files.readString(ib.resolve("mlx5_0/ports/1/phys_state"))).isEqualTo("4: ACTIVE\n");
    }

    @Test
    void extractsSymlinksAndRejectsEscapes(@TempDir Path tmp) throws IOException {
        String archive = "Directory: a\nMode: 755\n# ttar -\nPath: a/f\nLines: 1\nx\nMode: 644\n# ttar -\n"
                + "Path: a/l\nSymlinkTo: f\n";
        Ttar.extract(new BufferedReader(new StringReader(archive)), tmp, "");
        assertThat(Files.isSymbolicLink(tmp.resolve("a/l"))).isTrue();
        assertThat(Files.readString(tmp.resolve("a/l"))).isEqualTo("x\n");
        assertThatThrownBy(() -> Ttar.extract(new BufferedReader(new StringReader("Path: ../x\nLines: 0\n")), tmp, ""))
                .isInstanceOf(IOException.class).hasMessageContaining("leaves");
    }

    /** fabricd's binary record: a config space's bytes, every value included, come back as they were. */
    @Test
    void extractsBinaryFiles(@TempDir Path tmp) throws IOException {
        byte[] bytes = new byte[300];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) i;
        }
        String b64 = Base64.getEncoder().encodeToString(bytes);
        String archive = "Path: d/config\nBase64: 2\n" + b64.substring(0, 200) + "\n" + b64.substring(200) + "\nMode: 644\n";
        Ttar.extract(new BufferedReader(new StringReader(archive)), tmp, "");
        assertThat(Files.readAllBytes(tmp.resolve("d/config"))).isEqualTo(bytes);
        assertThatThrownBy(() -> Ttar.extract(new BufferedReader(new StringReader("Path: e\nBase64: 1\n!!\n")), tmp, ""))
                .isInstanceOf(IOException.class).hasMessageContaining("bad base64");
    }
}
