package io.fabricd.collectors.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabricd.collectors.Fixtures;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
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
}
