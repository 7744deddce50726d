package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.agent.config.ListenAddress;
import io.fabricd.collectors.Fixtures;
import io.fabricd.testing.LogCapture;
import io.fabricd.testing.PrivateFiles;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The state folder and the node name lock's folder obey the rule {@code snapshot --out} does
 * (SnapshotOutTest): nothing is written in or under a folder another user can change.
 */
class WrittenFoldersTest {
    private static final String HOST = Fixtures.host("host-a-ib").toString();
    private static final String RULE = "choose a folder only you and root can change";

    private static CliTest.Result accept(Path state) {
        return CliTest.run("inventory", "accept", "--root", HOST, "--state-dir", state.toString());
    }

    private static void oneLineExitTwo(CliTest.Result r, String says) {
        assertThat(r.code()).as(r.err()).isEqualTo(2);
        assertThat(r.err()).startsWith("fabricd: ").contains(says, RULE).doesNotContain("\tat ", "Exception");
        assertThat(r.err().strip().lines()).hasSize(1);
    }

    private static Path everybodys(Path dir) throws Exception {
        Files.setPosixFilePermissions(Files.createDirectory(dir), PosixFilePermissions.fromString("rwxrwxrwx"));
        return dir;
    }

    @Test
    void aStateFolderOthersCanWriteIsRefusedAndNothingWritten(@TempDir Path tmp) throws Exception {
        Path shared = everybodys(tmp.resolve("shared"));
        String says = "the folder " + shared.toRealPath() + " can be written by everybody without the sticky bit";
        // a state folder to be made under it, and the folder itself
        oneLineExitTwo(accept(shared.resolve("state")), says);
        oneLineExitTwo(accept(shared), says);
        assertThat(shared).isEmptyDirectory(); // no folder, no .lock, no inventory.json
        // the same folder, sticky: accepted
        Files.setAttribute(shared, "unix:mode", 01777, LinkOption.NOFOLLOW_LINKS);
        CliTest.Result ok = accept(shared.resolve("state"));
        assertThat(ok.code()).as(ok.err()).isZero();
        assertThat(shared.resolve("state/inventory.json")).isRegularFile();
    }

    @Test
    void aStateFolderOfAnotherUserIsRefused(@TempDir Path tmp) throws Exception {
        Requirements.require(Integer.valueOf(0).equals(Files.getAttribute(tmp, "unix:uid")), "root, to give a folder to another user");
        Path theirs = Files.createDirectory(tmp.resolve("theirs"));
        Files.setAttribute(theirs, "unix:uid", 65534, LinkOption.NOFOLLOW_LINKS);
        oneLineExitTwo(accept(theirs.resolve("state")), "the folder " + theirs.toRealPath() + " belongs to ");
        assertThat(theirs).isEmptyDirectory();
        // the folder itself another user's that a group may write: root does not write there for its owner
        Files.setPosixFilePermissions(theirs, PosixFilePermissions.fromString("rwxrwx---"));
        CliTest.Result shared = accept(theirs);
        assertThat(shared.code()).as(shared.err()).isEqualTo(2);
        assertThat(shared.err()).startsWith("fabricd: ").contains("the folder " + theirs.toRealPath() + " belongs to ", "uid 65534)",
                "can be written by", "chmod go-w " + theirs.toRealPath()).doesNotContain("\tat ", "choose a folder");
        assertThat(shared.err().strip().lines()).hasSize(1);
        assertThat(theirs).isEmptyDirectory();
    }

    /**
     * The .deb's layout: /var/lib/fabricd is the service user's (StateDirectory=, User=fabricd), mode
     * 0700. Root accepts into it, and what it writes is the service user's, so the agent reads it.
     */
    @Test
    void rootAcceptsIntoTheStateFolderOfTheAgentsServiceUser(@TempDir Path tmp) throws Exception {
        Requirements.require(Integer.valueOf(0).equals(Files.getAttribute(tmp, "unix:uid")), "root, to give a folder to another user");
        Path state = Files.createDirectory(tmp.resolve("state"));
        Files.setPosixFilePermissions(state, PosixFilePermissions.fromString("rwx------"));
        Files.setAttribute(state, "unix:gid", 65534, LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(state, "unix:uid", 65534, LinkOption.NOFOLLOW_LINKS);
        for (int i = 0; i < 2; i++) { // a folder without a lock yet, then one with the lock and an inventory
            CliTest.Result ok = accept(state);
            assertThat(ok.code()).as(ok.err()).isZero();
            assertThat(ok.out()).contains("accepted " + state.resolve("inventory.json"));
            for (String f : List.of("inventory.json", ".lock")) {
                Path p = state.resolve(f);
                assertThat(Files.readAttributes(p, "unix:uid,gid,mode", LinkOption.NOFOLLOW_LINKS)).as(f)
                        .containsEntry("uid", 65534).containsEntry("gid", 65534).containsEntry("mode", 0100600);
            }
            try (var names = Files.list(state)) {
                assertThat(names.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("inventory.json", ".lock");
            }
        }
        CliTest.Result show = CliTest.run("inventory", "show", "--root", HOST, "--state-dir", state.toString());
        assertThat(show.code()).as(show.err()).isZero();
        assertThat(show.out()).contains("everything expected is present");
    }

    @Test
    void aNodeLockFolderOthersCanWriteIsNotUsedAndSaidSo(@TempDir Path tmp) throws Exception {
        Path shared = everybodys(tmp.resolve("shared"));
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY + "\n");
        LogCapture log = new LogCapture(Logger.getLogger(Agent.class.getName()), Level.WARNING, false);
        log.attach();
        try (Agent agent = new Agent(Fixtures.open("host-a-ib"), AgentProbeTest.config(key, List.of()),
                new ListenAddress("127.0.0.1", 0)).nodeLocks(shared.resolve("run")).start()) {
            assertThat(agent.port()).isPositive(); // the lock only finds a twin: the agent serves without it
            assertThat(log.messages()).anySatisfy(m -> assertThat(m).contains("node name lock in " + shared.resolve("run")
                    + " not taken", "the folder " + shared.toRealPath() + " can be written by everybody", RULE));
        } finally {
            log.detach();
        }
        assertThat(shared).isEmptyDirectory();
    }
}
