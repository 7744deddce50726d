package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabricd.collectors.Fixtures;
import io.fabricd.collectors.snapshot.SnapshotWriter;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fabricd snapshot --out} as root in a folder other users can write to: planted links and
 * folders are refused, never followed; a folder another user can change (theirs, or writable
 * without the sticky bit) is refused before anything is written, however they race to plant a link;
 * a failed write leaves nothing {@code --root} accepts; every refusal or failure is one line and exit 2.
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

    @Test
    void aParentOfAnotherUserIsRefusedWhileTheyRaceToPlantALink(@TempDir Path tmp) throws Exception {
        Requirements.require(isRoot(tmp), "root, to give a folder to another user");
        // the other user's folder (uid 65534, nobody), and a folder only root may write
        Path theirs = Files.createDirectory(tmp.resolve("home"));
        Files.setAttribute(theirs, "unix:uid", 65534, LinkOption.NOFOLLOW_LINKS);
        Path rootOnly = Files.createDirectory(tmp.resolve("root-only"));
        Files.setPosixFilePermissions(rootOnly, PosixFilePermissions.fromString("rwx------"));
        // what its owner may do there (rename(2) of a folder within a folder of theirs, whoever made
        // it, and a new link): move every private folder away and put a link to rootOnly in its place
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger planted = new AtomicInteger();
        Thread attacker = new Thread(() -> {
            while (!stop.get()) {
                try (DirectoryStream<Path> ds = Files.newDirectoryStream(theirs)) {
                    for (Path p : ds) {
                        if (p.getFileName().toString().contains(".fabricd-") && Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                            Files.move(p, theirs.resolve("moved-" + planted.get()));
                            Files.createSymbolicLink(p, rootOnly);
                            planted.incrementAndGet();
                        }
                    }
                } catch (IOException e) {
                    // raced with the snapshot: look again
                }
            }
        }, "attacker");
        attacker.start();
        CliTest.Result r;
        try {
            r = snapshot(theirs.resolve("snap"));
        } finally {
            stop.set(true);
            attacker.join();
        }
        assertThat(names(rootOnly)).as("written through the planted link").isEmpty();
        oneLineExitTwo(r, "--out " + theirs.resolve("snap") + ": the folder " + theirs.toRealPath() + " belongs to ");
        assertThat(r.err()).contains("uid 65534)", "choose a folder only you and root can change");
        assertThat(planted.get()).isZero();
        assertThat(names(theirs)).isEmpty(); // refused before anything was made there
    }

    @Test
    void aFolderOthersCanWriteWithoutTheStickyBitIsRefused(@TempDir Path tmp) throws Exception {
        Path shared = Files.createDirectory(tmp.resolve("shared"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        CliTest.Result r = snapshot(shared.resolve("snap"));
        oneLineExitTwo(r, "the folder " + shared.toRealPath() + " can be written by everybody without the sticky bit");
        assertThat(r.err()).contains("choose a folder only you and root can change");
        assertThat(names(shared)).isEmpty();
        // a folder above it counts as much as the one written in
        Path below = Files.createDirectory(shared.resolve("mine"));
        oneLineExitTwo(snapshot(below.resolve("snap")), "the folder " + shared.toRealPath() + " can be written by everybody");
        assertThat(names(below)).isEmpty();
        Files.delete(below);
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxr-x"));
        CliTest.Result group = snapshot(shared.resolve("snap"));
        oneLineExitTwo(group, "the folder " + shared.toRealPath() + " can be written by ");
        assertThat(group.err()).contains("gid " + Files.getAttribute(shared, "unix:gid"), "without the sticky bit");
        assertThat(names(shared)).isEmpty();
    }

    @Test
    void aStickyFolderLikeTmpIsAccepted(@TempDir Path tmp) throws Exception {
        Path sticky = Files.createDirectory(tmp.resolve("sticky"));
        Files.setAttribute(sticky, "unix:mode", 01777, LinkOption.NOFOLLOW_LINKS);
        CliTest.Result r = snapshot(sticky.resolve("snap"));
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(sticky.resolve("snap/fabricd-snapshot.json")).isRegularFile();
        // straight into /tmp (sticky, root's), and through a link to a folder of one's own
        Path inTmp = Path.of("/tmp", "fabricd-snapshot-out-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
        try {
            CliTest.Result t = snapshot(inTmp);
            assertThat(t.code()).as(t.err()).isZero();
            assertThat(inTmp.resolve("fabricd-snapshot.json")).isRegularFile();
        } finally {
            SnapshotWriter.deleteTree(inTmp);
        }
        Path mine = Files.createDirectory(tmp.resolve("mine"));
        Path viaLink = Files.createSymbolicLink(tmp.resolve("link"), mine);
        assertThat(snapshot(viaLink.resolve("snap")).code()).isZero();
        assertThat(mine.resolve("snap/fabricd-snapshot.json")).isRegularFile();
    }

    @Test
    void aLinkAnotherUserPlantedOnTheWayIsRefusedNotFollowed(@TempDir Path tmp) throws Exception {
        Requirements.require(isRoot(tmp), "root, to give a link to another user");
        // /tmp-like: root's, sticky, everybody may make entries; theirs is a link to a root-only folder
        Path sticky = Files.createDirectory(tmp.resolve("sticky"));
        Files.setAttribute(sticky, "unix:mode", 01777, LinkOption.NOFOLLOW_LINKS);
        Path rootOnly = Files.createDirectory(tmp.resolve("root-only"));
        Files.setPosixFilePermissions(rootOnly, PosixFilePermissions.fromString("rwx------"));
        Path link = Files.createSymbolicLink(sticky.resolve("x"), rootOnly);
        Files.setAttribute(link, "unix:uid", 65534, LinkOption.NOFOLLOW_LINKS);
        CliTest.Result r = snapshot(link.resolve("snap"));
        oneLineExitTwo(r, "the link " + link + " belongs to uid 65534, who can point it anywhere");
        assertThat(names(rootOnly)).as("written through the planted link").isEmpty();
        // the same link, root's: followed
        Files.setAttribute(link, "unix:uid", 0, LinkOption.NOFOLLOW_LINKS);
        assertThat(snapshot(link.resolve("snap")).code()).isZero();
        assertThat(rootOnly.resolve("snap/fabricd-snapshot.json")).isRegularFile();
    }

    private static boolean isRoot(Path any) throws IOException {
        return Integer.valueOf(0).equals(Files.getAttribute(any, "unix:uid"));
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
