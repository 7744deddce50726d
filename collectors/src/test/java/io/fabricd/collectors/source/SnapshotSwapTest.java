package io.fabricd.collectors.source;

import io.fabricd.collectors.kernel.HostReadException;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabricd.collectors.CollectorConfig;
import io.fabricd.collectors.Fixtures;
import io.fabricd.collectors.run.HostCollection;
import io.fabricd.model.HostModel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A snapshot folder changed under a running agent by someone who can write to it: a file swapped
 * for a link out of the folder or for a pipe after the first collection reads nothing out of the
 * folder and does not hang; the folder deleted and made again is read again.
 */
class SnapshotSwapTest {
    private static final String COUNTER = "sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error";

    private static HostModel collect(SnapshotHostSource src) {
        return HostCollection.standard(CollectorConfig.DEFAULT).collect(src);
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aFileSwappedForALinkOutOrAPipeIsRefusedAndNothingHangs(@TempDir Path tmp) throws Exception {
        Path root = Fixtures.copy("host-a-ib", tmp.resolve("snap"));
        Path secret = Files.writeString(tmp.resolve("secret"), "424242\n");
        SnapshotHostSource src = SnapshotHostSource.open(root);
        collect(src);
        String before = src.read(COUNTER);
        Path counter = root.resolve(COUNTER).toRealPath();

        Files.delete(counter);
        assertThat(new ProcessBuilder("mkfifo", counter.toString()).start().waitFor()).isZero();
        assertThatThrownBy(() -> src.read(COUNTER)).isInstanceOf(HostReadException.class)
                .satisfies(e -> assertThat(((HostReadException) e).errno()).isEqualTo("EINVAL"));
        collect(src); // finishes: the pipe is never opened

        Path other = root.resolve(COUNTER.replace("symbol_error", "port_rcv_errors")).toRealPath();
        Files.delete(other);
        Files.createSymbolicLink(other, other.getParent().relativize(secret)); // ../../.. out of the folder
        assertThatThrownBy(() -> src.read(COUNTER.replace("symbol_error", "port_rcv_errors"))).isInstanceOf(HostReadException.class)
                .satisfies(e -> assertThat(((HostReadException) e).errno()).isEqualTo("EXDEV"));
        assertThat(collect(src).toString()).doesNotContain("424242");
        Path third = root.resolve(COUNTER.replace("symbol_error", "link_downed")).toRealPath();
        Files.delete(third);
        Files.createSymbolicLink(third, secret); // absolute: taken as inside the folder, where it is not
        assertThatThrownBy(() -> src.read(COUNTER.replace("symbol_error", "link_downed"))).isInstanceOf(HostReadException.class)
                .satisfies(e -> assertThat(((HostReadException) e).errno()).isEqualTo("ENOENT"));

        // put back: read again from the next collection on
        Files.delete(counter);
        Files.writeString(counter, before);
        collect(src);
        assertThat(src.read(COUNTER)).isEqualTo(before);
    }

    /**
     * A folder above a file swapped for a link out of the snapshot, after the file was resolved: the
     * open (openat2, no links, beneath the root) meets the link and the file is resolved again, which
     * refuses the link out. The outside file's content never shows. A listing of a folder swapped so
     * is refused too.
     */
    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aFolderAboveAFileSwappedForALinkOutIsNotFollowed(@TempDir Path tmp) throws Exception {
        Path root = Fixtures.copy("host-a-ib", tmp.resolve("snap"));
        Path counters = root.resolve("sys/class/infiniband/mlx5_0/ports/1/counters").toRealPath();
        Path outside = Files.createDirectories(tmp.resolve("outside"));
        try (var files = Files.list(counters)) {
            for (Path f : files.toList()) {
                Files.writeString(outside.resolve(f.getFileName().toString()), "424242\n");
            }
        }
        SnapshotHostSource src = SnapshotHostSource.open(root);
        String before = src.read(COUNTER);
        assertThat(src.list("sys/class/infiniband/mlx5_0/ports/1/counters")).contains("symbol_error");
        Path moved = Files.move(counters, counters.resolveSibling("counters.real"));
        Files.createSymbolicLink(counters, counters.getParent().relativize(outside)); // ../../.. out of the folder
        assertThatThrownBy(() -> src.read(COUNTER)).isInstanceOf(HostReadException.class)
                .satisfies(e -> assertThat(((HostReadException) e).errno()).isEqualTo("EXDEV"));
        assertThatThrownBy(() -> src.list("sys/class/infiniband/mlx5_0/ports/1/counters")).isInstanceOf(HostReadException.class);
        assertThat(collect(src).toString()).doesNotContain("424242");
        // a link that stays inside the folder is followed, as the snapshot format allows
        Files.delete(counters);
        Files.createSymbolicLink(counters, moved.getFileName());
        assertThat(src.read(COUNTER)).isEqualTo(before);
    }

    @Test
    void aFolderDeletedAndMadeAgainIsReadAgain(@TempDir Path tmp) throws Exception {
        Path root = Fixtures.copy("host-a-ib", tmp.resolve("snap"));
        SnapshotHostSource src = SnapshotHostSource.open(root);
        collect(src);
        assertThat(src.read(COUNTER).strip()).isNotEqualTo("77");
        assertThat(new ProcessBuilder("rm", "-rf", root.toString()).start().waitFor()).isZero();
        collect(src); // the folder is gone: read errors, no exception
        Fixtures.copy("host-a-ib", root);
        Files.writeString(root.resolve(COUNTER).toRealPath(), "77\n");
        collect(src);
        assertThat(src.read(COUNTER).strip()).isEqualTo("77");
    }
}
