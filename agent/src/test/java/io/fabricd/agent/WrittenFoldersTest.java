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
        oneLineExitTwo(accept(theirs), "uid 65534)");
        assertThat(theirs).isEmptyDirectory();
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
