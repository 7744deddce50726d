package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.agent.config.AgentConfig;
import io.fabricd.agent.config.ListenAddress;
import io.fabricd.agent.state.NodeNameLock;
import io.fabricd.collectors.Fixtures;
import io.fabricd.collectors.files.FolderChain;
import io.fabricd.natives.ProcessIdentity;
import io.fabricd.testing.LogCapture;
import io.fabricd.testing.PrivateFiles;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two agents on one host under one node name: the second to start says so and what to do; a
 * distinct probe.node_name, or the first one gone (closed or killed), and nothing is said.
 */
class NodeNameLockTest {
    private static final Logger LOG = Logger.getLogger(Agent.class.getName());
    private final LogCapture log = new LogCapture(LOG, Level.WARNING, false);

    @BeforeEach
    void listen() {
        log.attach();
    }

    @AfterEach
    void stop() {
        log.detach();
    }

    private static Agent agent(Path key, Path locks, String nodeName) {
        AgentConfig c = AgentProbeTest.config(key, List.of(), "node_name: " + nodeName);
        return new Agent(Fixtures.open("host-a-ib"), c, new ListenAddress("127.0.0.1", 0)).nodeLocks(locks).start();
    }

    private List<String> nodeWarnings() {
        return log.messages().stream().filter(w -> w.contains("already runs as node")).toList();
    }

    @Test
    void aSecondAgentUnderTheSameNodeNameSaysSoAndWhatToDo(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY + "\n");
        Path locks = tmp.resolve("run");
        try (Agent first = agent(key, locks, null)) {
            assertThat(nodeWarnings()).isEmpty();
            try (Agent second = agent(key, locks, null)) {
                assertThat(nodeWarnings()).singleElement().asString()
                        .contains("another fabricd agent on this host (pid " + ProcessHandle.current().pid() + ", HTTP 127.0.0.1:"
                                + first.port() + ")")
                        .contains("already runs as node 'dgx-h100-01'")
                        .contains("probe.node_name", "NODE_NAME", "--state-dir");
                assertThat(second.port()).isPositive(); // a warning: the second agent serves all the same
            }
            log.clear();
            // a name of its own: nothing to say
            try (Agent other = agent(key, locks, "dgx-h100-01-b")) {
                assertThat(other.port()).isPositive();
                assertThat(nodeWarnings()).isEmpty();
            }
        }
        // the first one gone: its file stays, its lock does not
        assertThat(locks.resolve("node-dgx-h100-01.lock")).exists();
        try (Agent again = agent(key, locks, null)) {
            assertThat(again.port()).isPositive();
            assertThat(nodeWarnings()).isEmpty();
        }
    }

    @Test
    void anAgentKilledLeavesNoStaleLockAndAnotherProcessIsNamed(@TempDir Path tmp) throws Exception {
        Path locks = tmp.resolve("run");
        String jvm = ProcessHandle.current().info().command().orElse("java");
        String cp = Path.of(NodeNameLock.class.getProtectionDomain().getCodeSource().getLocation().toURI()) + File.pathSeparator
                + Path.of(FolderChain.class.getProtectionDomain().getCodeSource().getLocation().toURI()) + File.pathSeparator
                + Path.of(ProcessIdentity.class.getProtectionDomain().getCodeSource().getLocation().toURI()) + File.pathSeparator
                + Path.of(Holder.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Process holder = new ProcessBuilder(jvm, "-cp", cp, Holder.class.getName(), locks.toString(), "gpu-07")
                .redirectErrorStream(true).start();
        try {
            String line = new BufferedReader(new InputStreamReader(holder.getInputStream())).readLine();
            assertThat(line).isEqualTo("held");
            try (NodeNameLock l = NodeNameLock.take(locks, "gpu-07", "this test")) {
                assertThat(l.heldByAnother()).isEqualTo("pid " + holder.pid() + ", HTTP 127.0.0.1:9530");
            }
        } finally {
            holder.destroyForcibly(); // SIGKILL: no chance to clean up
            holder.waitFor(20, TimeUnit.SECONDS);
        }
        assertThat(Files.readString(locks.resolve("node-gpu-07.lock"))).contains("pid " + holder.pid());
        try (NodeNameLock l = NodeNameLock.take(locks, "gpu-07", "pid 1, HTTP :9530")) {
            assertThat(l.heldByAnother()).isNull();
            assertThat(Files.readString(l.file())).isEqualTo("pid 1, HTTP :9530\n");
            // who holds it is this user's to read and lock alone: another user's read lock could pass for an agent
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(l.file()))).isEqualTo("rw-------");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(locks))).isEqualTo("rwx------");
        }
    }

    /** Another agent's process: takes the lock, says so, and waits to be killed. */
    public static final class Holder {
        public static void main(String[] args) throws Exception {
            NodeNameLock l = NodeNameLock.take(Path.of(args[0]), args[1], "pid " + ProcessHandle.current().pid()
                    + ", HTTP 127.0.0.1:9530");
            System.out.println(l.heldByAnother() == null ? "held" : "taken by " + l.heldByAnother());
            System.out.flush();
            Thread.sleep(Duration.ofMinutes(2).toMillis());
        }
    }
}
