package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabricd.collectors.Fixtures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fabricd snapshot --out} as root in a folder other users can write to: planted links and
 * folders are refused, never followed; a failed write leaves nothing {@code --root} accepts; every
 * refusal or failure is one line and exit 2.
 */
class SnapshotOutTest {
    private static final String HOST = Fixtures.host("host-a-ib").toString();

    private static CliTest.Result snapshot(Path out) {
        return CliTest.run("snapshot", "--root", HOST, "--out", out.toString());
    }

    private static void oneLineExitTwo(CliTest.Result r, String says) {
        assertThat(r.code()).as(r.err()).isEqualTo(2);
        assertThat(r.err()).startsWith("fabricd: ").contains(says).doesNotContain("\tat ", "internal error", "Exception");
        assertThat(r.err().strip().lines()).hasSize(1);
    }

    /** Nothing but what the test put there: no leftover private folder. */
    private static List<String> names(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void aLinkPlantedAsTheFolderIsRefusedAndItsTargetUntouched(@TempDir Path tmp) throws Exception {
        Path secret = Files.writeString(tmp.resolve("shadow"), "root:secret\n");
        Path victimDir = Files.createDirectory(tmp.resolve("etc"));
        Path out = Files.createSymbolicLink(tmp.resolve("before"), victimDir);
        oneLineExitTwo(snapshot(out), "is a symbolic link");
        assertThat(names(victimDir)).isEmpty();
        Path toFile = Files.createSymbolicLink(tmp.resolve("before2"), secret);
        oneLineExitTwo(snapshot(toFile), "is a symbolic link");
        assertThat(Files.readString(secret)).isEqualTo("root:secret\n");
        assertThat(names(tmp)).containsExactly("before", "before2", "etc", "shadow");
    }

    @Test
    void aFolderWithAPlantedLinkInsideIsRefused(@TempDir Path tmp) throws Exception {
        Path secret = Files.writeString(tmp.resolve("shadow"), "root:secret\n");
        Path out = Files.createDirectory(tmp.resolve("before"));
        // where the snapshot would write its manifest
        Files.createSymbolicLink(out.resolve("fabricd-snapshot.json"), secret);
        oneLineExitTwo(snapshot(out), "not an empty folder");
        assertThat(Files.readString(secret)).isEqualTo("root:secret\n");
    }

    @Test
    void anEmptyFolderOfAnotherUserIsRefused(@TempDir Path tmp) throws Exception {
        Path out = Files.createDirectory(tmp.resolve("before"));
        Object self = Files.getAttribute(out, "unix:uid");
        assumeTrue(Integer.valueOf(0).equals(self), "only root can give a folder to another user");
        Files.setAttribute(out, "unix:uid", 65534, LinkOption.NOFOLLOW_LINKS);
        oneLineExitTwo(snapshot(out), "belongs to another user (uid 65534)");
        assertThat(names(out)).isEmpty();
    }

    @Test
    void anEmptyFolderOfOneselfAndANewOneAreWrittenWithNothingLeftBeside(@TempDir Path tmp) throws Exception {
        Path empty = Files.createDirectory(tmp.resolve("empty"));
        CliTest.Result r = snapshot(empty);
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(empty.resolve("fabricd-snapshot.json")).isRegularFile();
        assertThat(Files.isSymbolicLink(empty.resolve("sys/class/infiniband/mlx5_0"))).isTrue();
        assertThat(Files.getPosixFilePermissions(empty)).hasSize(7); // rwxr-xr-x, as mkdir makes it
        Path fresh = tmp.resolve("fresh");
        assertThat(snapshot(fresh).code()).isZero();
        assertThat(SnapshotRoundTripTest.metrics(fresh)).isEqualTo(SnapshotRoundTripTest.metrics(empty));
        assertThat(names(tmp)).containsExactly("empty", "fresh");
        oneLineExitTwo(snapshot(fresh), "not an empty folder");
    }

    @Test
    void aMissingParentOrAFileInTheWayIsOneLine(@TempDir Path tmp) throws Exception {
        oneLineExitTwo(snapshot(tmp.resolve("no/such/folder")), "does not exist");
        Path file = Files.writeString(tmp.resolve("file"), "x");
        oneLineExitTwo(snapshot(file), "--out " + file + " is a file, not a folder");
        oneLineExitTwo(snapshot(file.resolve("below")), "the folder " + file + " is a file, not a folder");
        assertThat(Files.readString(file)).isEqualTo("x");
        assertThat(names(tmp)).containsExactly("file");
    }

    @Test
    void aFileIsNamedAsGivenNeverByItsParentOrATemporaryName(@TempDir Path tmp) throws Exception {
        // relative, as typed: the message names it so, not as an absolute path or by its folder
        Path rel = Path.of("target", "snapshot-out-test-" + ProcessHandle.current().pid());
        Files.createDirectories(rel.getParent());
        Files.writeString(rel, "x");
        try {
            CliTest.Result r = snapshot(rel);
            oneLineExitTwo(r, "fabricd: --out " + rel + " is a file, not a folder");
            assertThat(r.err()).doesNotContain(rel.toAbsolutePath().toString(), ".fabricd-");
        } finally {
            Files.delete(rel);
        }
        // a file in a folder nobody can write to: still "a file", not "cannot write in /proc"
        CliTest.Result proc = snapshot(Path.of("/proc/version"));
        oneLineExitTwo(proc, "--out /proc/version is a file, not a folder");
        assertThat(proc.err()).doesNotContain("cannot write", ".fabricd-");
    }

    @Test
    void aFullDiskLeavesNothingThatRootAccepts(@TempDir Path tmp) throws Exception {
        Path small = Files.createDirectory(tmp.resolve("small"));
        assumeTrue(mount("-t", "tmpfs", "-o", "size=16k", "tmpfs", small.toString()), "needs root to mount a 16 KiB tmpfs");
        try {
            Path out = small.resolve("snap");
            CliTest.Result r = snapshot(out);
            oneLineExitTwo(r, "no space left on device");
            assertThat(names(small)).isEmpty();
            assertThat(CliTest.run("metrics", "--root", out.toString()).code()).isEqualTo(2);
        } finally {
            mount("-u", small.toString());
        }
    }

    @Test
    void anUnwritableFolderIsOneLine(@TempDir Path tmp) throws Exception {
        // /proc refuses new folders to root too
        CliTest.Result r = snapshot(Path.of("/proc/fabricd-snapshot-test"));
        oneLineExitTwo(r, "cannot write in /proc");
        assertThat(r.err()).doesNotContain(".fabricd-"); // the private folder's name is never shown
    }

    /** mount ARGS (or umount for "-u DIR"); false when it cannot (not root, no mount in this sandbox). */
    private static boolean mount(String... args) throws Exception {
        List<String> cmd = args[0].equals("-u") ? List.of("umount", args[1])
                : Stream.concat(Stream.of("mount"), Stream.of(args)).toList();
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor() == 0;
        } catch (IOException e) {
            return false;
        }
    }
}
