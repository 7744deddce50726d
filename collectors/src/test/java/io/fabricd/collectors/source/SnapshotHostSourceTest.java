package io.fabricd.collectors.source;

import io.fabricd.collectors.kernel.HostReadException;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabricd.collectors.Fixtures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SnapshotHostSourceTest {

    @Test
    void followsRelativeLinksInsideTheSnapshot() throws Exception {
        SnapshotHostSource s = Fixtures.open("host-a-ib");
        assertThat(s.readLine("sys/class/infiniband/mlx5_0/node_guid")).isEqualTo("a088:c203:00a1:b2c4");
        assertThat(s.realPath("sys/class/infiniband/mlx5_0/device"))
                .isEqualTo("sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:01.0/0000:19:00.0");
        assertThat(s.list("sys/class/infiniband")).containsExactly("mlx5_0");
        assertThat(s.manifest()).isPresent();
        assertThat(s.manifest().get().hostname()).isEqualTo("dgx-h100-01");
        assertThat(s.manifest().get().labels()).containsEntry("rack", "r12");
        assertThat(s.isSnapshot()).isTrue();
    }

    @Test
    void unreadableFilesFailWithTheirErrnoThroughAnyLink() {
        SnapshotHostSource s = Fixtures.open("host-a-ib");
        assertThatThrownBy(() -> s.read("sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types/1"))
                .isInstanceOfSatisfying(HostReadException.class, e -> assertThat(e.errno()).isEqualTo("EINVAL"));
        assertThat(s.exists("sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types/1")).isTrue();
    }

    @Test
    void unreadableFileAbsentFromTheFolderStillExistsAndIsListed() throws Exception {
        SnapshotHostSource s = Fixtures.open("host-broken");
        String dir = "sys/class/infiniband/mlx5_1/ports/1/counters";
        assertThat(s.list(dir)).contains("port_rcv_packets", "port_xmit_packets");
        assertThatThrownBy(() -> s.read(dir + "/port_rcv_packets"))
                .isInstanceOfSatisfying(HostReadException.class, e -> assertThat(e.errno()).isEqualTo("EINVAL"));
        assertThatThrownBy(() -> s.read(dir + "/port_xmit_packets"))
                .isInstanceOfSatisfying(HostReadException.class, e -> assertThat(e.errno()).isEqualTo("EIO"));
    }

    @Test
    void neverFollowsALinkOutOfTheFolder(@TempDir Path tmp) throws Exception {
        Path root = tmp.resolve("snap");
        Files.createDirectories(root.resolve("sys/class"));
        Files.writeString(tmp.resolve("secret"), "outside\n");
        Files.createSymbolicLink(root.resolve("sys/class/up"), Path.of("../../../secret"));
        Files.createSymbolicLink(root.resolve("sys/class/abs"), Path.of("/sys/class/target"));
        Files.writeString(root.resolve("sys/class/target"), "inside\n");
        SnapshotHostSource s = SnapshotHostSource.open(root);
        assertThatThrownBy(() -> s.read("sys/class/up"))
                .isInstanceOfSatisfying(HostReadException.class, e -> assertThat(e.errno()).isEqualTo("EXDEV"));
        assertThatThrownBy(() -> s.read("../secret"))
                .isInstanceOfSatisfying(HostReadException.class, e -> assertThat(e.errno()).isEqualTo("EXDEV"));
        // an absolute link is taken relative to the snapshot root
        assertThat(s.readLine("sys/class/abs")).isEqualTo("inside");
    }

    @Test
    void linkLoopsFailWithEloop(@TempDir Path tmp) throws Exception {
        Files.createDirectories(tmp.resolve("sys"));
        Files.createSymbolicLink(tmp.resolve("sys/a"), Path.of("b"));
        Files.createSymbolicLink(tmp.resolve("sys/b"), Path.of("a"));
        SnapshotHostSource s = SnapshotHostSource.open(tmp);
        assertThatThrownBy(() -> s.read("sys/a/x"))
                .isInstanceOfSatisfying(HostReadException.class, e -> assertThat(e.errno()).isEqualTo("ELOOP"));
        assertThat(s.exists("sys/a")).isFalse();
    }

    @Test
    void neverReadsAFifoOrAHugeFile(@TempDir Path tmp) throws Exception {
        Files.createDirectories(tmp.resolve("sys"));
        Process p = new ProcessBuilder("mkfifo", tmp.resolve("sys/fifo").toString()).start();
        assertThat(p.waitFor()).isZero();
        Files.write(tmp.resolve("sys/huge"), new byte[HostSource.MAX_FILE_BYTES + 10]);
        SnapshotHostSource s = SnapshotHostSource.open(tmp);
        assertThatThrownBy(() -> s.read("sys/fifo"))
                .isInstanceOfSatisfying(HostReadException.class, e -> assertThat(e.errno()).isEqualTo("EINVAL"));
        assertThatThrownBy(() -> s.read("sys/huge"))
                .isInstanceOfSatisfying(HostReadException.class, e -> assertThat(e.errno()).isEqualTo("EFBIG"));
        assertThatThrownBy(() -> s.read("sys"))
                .isInstanceOfSatisfying(HostReadException.class, e -> assertThat(e.errno()).isEqualTo("EISDIR"));
        assertThatThrownBy(() -> s.read("sys/missing"))
                .isInstanceOfSatisfying(HostReadException.class, e -> assertThat(e.isMissing()).isTrue());
    }

    @Test
    void unusableFoldersAndManifestsAreReportedClearly(@TempDir Path tmp) throws IOException {
        assertThatThrownBy(() -> SnapshotHostSource.open(tmp.resolve("nope")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not exist");
        Files.writeString(tmp.resolve("fabricd-snapshot.json"), "{not json");
        assertThatThrownBy(() -> SnapshotHostSource.open(tmp))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not valid");
        Files.writeString(tmp.resolve("fabricd-snapshot.json"), "{\"format\": 2}");
        assertThatThrownBy(() -> SnapshotHostSource.open(tmp))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("format 2");
    }

    /** A binary file (a PCI function's config space) comes back byte for byte, through links, never decoded as text. */
    @Test
    void readsBinaryFilesByteForByte(@TempDir Path tmp) throws Exception {
        byte[] all = new byte[4096];
        for (int i = 0; i < all.length; i++) {
            all[i] = (byte) (i * 7 + 3); // every byte value, invalid UTF-8 among them
        }
        Files.createDirectories(tmp.resolve("sys/devices/pci0000:00/0000:00:01.0"));
        Files.write(tmp.resolve("sys/devices/pci0000:00/0000:00:01.0/config"), all);
        Files.createDirectories(tmp.resolve("sys/bus/pci/devices"));
        Files.createSymbolicLink(tmp.resolve("sys/bus/pci/devices/0000:00:01.0"), Path.of("../../../devices/pci0000:00/0000:00:01.0"));
        SnapshotHostSource s = SnapshotHostSource.open(tmp);
        assertThat(s.readBytes("sys/bus/pci/devices/0000:00:01.0/config")).isEqualTo(all);
        assertThatThrownBy(() -> s.readBytes("sys/bus/pci/devices/0000:00:01.0/gone"))
                .isInstanceOfSatisfying(HostReadException.class, e -> assertThat(e.errno()).isEqualTo("ENOENT"));
    }
}
