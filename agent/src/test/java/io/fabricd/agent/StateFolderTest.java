package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.agent.config.ListenAddress;
import io.fabricd.agent.state.InventoryKeeper;
import io.fabricd.agent.state.InventoryStore;
import io.fabricd.collectors.CollectorConfig;
import io.fabricd.collectors.Fixtures;
import io.fabricd.collectors.run.HostCollection;
import io.fabricd.collectors.source.SnapshotHostSource;
import io.fabricd.diagnosis.inventory.Inventory;
import io.fabricd.model.HostModel;
import io.fabricd.natives.ProcessIdentity;
import io.fabricd.testing.LogCapture;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The state folder is the agent's alone: made and kept private, its lock never able to stop a
 * collection, and an inventory another user could have written never judged against.
 */
class StateFolderTest {
    private final LogCapture log = new LogCapture(Logger.getLogger(InventoryKeeper.class.getName()), Level.INFO, false);

    @BeforeEach
    void listen() {
        log.attach();
    }

    @AfterEach
    void stop() {
        log.detach();
    }

    private static Agent agent(Path state) {
        return agent(state, Duration.ofHours(1));
    }

    private static Agent agent(Path state, Duration interval) {
        return new Agent(Fixtures.open("host-a-ib"), AgentHttpTest.config(interval).withStateDir(state.toString()),
                new ListenAddress("127.0.0.1", 0)).start();
    }

    private static String mode(Path p) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void aLockHeldByAnotherProcessDelaysACollectionBoundedlyAndAcceptFailsInWords(@TempDir Path tmp) throws Exception {
        // the folder and lock as an agent before this rule left them: 0755 and 0644, so any user could open the lock
        Path state = Files.createDirectory(tmp.resolve("state"));
        Files.setPosixFilePermissions(state, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path lock = Files.createFile(state.resolve(".lock"));
        Files.setPosixFilePermissions(lock, PosixFilePermissions.fromString("rw-r--r--"));
        Process holder = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"), "-cp",
                Path.of(ReadLock.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString(), ReadLock.class.getName(),
                lock.toString()).redirectErrorStream(true).start();
        try {
            assertThat(new BufferedReader(new InputStreamReader(holder.getInputStream())).readLine()).isEqualTo("held");
            long t0 = System.nanoTime();
            try (Agent a = agent(state)) {
                assertThat(a.awaitReady(Duration.ofSeconds(30))).as("the first collection finishes").isTrue();
                assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(30));
                assertThat(Http.get(a.port(), "/readyz").statusCode()).isEqualTo(200);
                assertThat(log.messages()).filteredOn(m -> m.contains("is held by another process")).singleElement().asString()
                        .contains(lock.toString(), "kept in memory", "fuser");
                assertThat(state.resolve("inventory.json")).doesNotExist();
            }
            long t1 = System.nanoTime();
            CliTest.Result accept = CliTest.run("inventory", "accept", "--root", Fixtures.host("host-a-ib").toString(), "--state-dir",
                    state.toString());
            assertThat(Duration.ofNanos(System.nanoTime() - t1)).isLessThan(Duration.ofSeconds(30));
            assertThat(accept.code()).isEqualTo(2);
            assertThat(accept.err()).startsWith("fabricd: ").contains(lock.toString(), "held by another process", "try again")
                    .doesNotContain("\tat ");
            assertThat(state.resolve("inventory.json")).doesNotExist();
        } finally {
            holder.destroyForcibly();
            holder.waitFor(20, TimeUnit.SECONDS);
        }
        // the holder gone: the next agent writes its inventory
        try (Agent a = agent(state)) {
            assertThat(a.awaitReady(Duration.ofSeconds(30))).isTrue();
            assertThat(state.resolve("inventory.json")).isRegularFile();
        }
    }

    @Test
    void theFolderAndItsFilesAreMadePrivateAndAnOldOneTightenedOnce(@TempDir Path tmp) throws Exception {
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path fresh = tmp.resolve("fresh");
        try (Agent a = agent(fresh)) {
            assertThat(a.awaitReady(Duration.ofSeconds(30))).isTrue();
        }
        assertThat(mode(fresh)).isEqualTo("rwx------");
        assertThat(mode(fresh.resolve(".lock"))).isEqualTo("rw-------");
        assertThat(mode(fresh.resolve("inventory.json"))).isEqualTo("rw-------");
        assertThat(log.messages()).noneMatch(m -> m.contains("private"));

        // as the Helm chart's hostPath or an earlier agent left it: 0755, 0644
        Path old = Files.createDirectory(tmp.resolve("old"));
        Files.copy(fresh.resolve("inventory.json"), old.resolve("inventory.json"));
        Files.createFile(old.resolve(".lock"));
        Files.setPosixFilePermissions(old, PosixFilePermissions.fromString("rwxr-xr-x"));
        for (String f : List.of("inventory.json", ".lock")) {
            Files.setPosixFilePermissions(old.resolve(f), PosixFilePermissions.fromString("rw-r--r--"));
        }
        try (Agent a = agent(old, Duration.ofMillis(100))) {
            assertThat(a.awaitReady(Duration.ofSeconds(30))).isTrue();
            Thread.sleep(1000); // collections after the first: nothing more to say
        }
        assertThat(mode(old)).isEqualTo("rwx------");
        assertThat(mode(old.resolve(".lock"))).isEqualTo("rw-------");
        assertThat(mode(old.resolve("inventory.json"))).isEqualTo("rw-------");
        assertThat(log.messages()).filteredOn(m -> m.contains("private")).singleElement().asString()
                .contains(old.toString(), "0755", "0700", "inventory.json", ".lock", "0600");
    }

    static HostModel model(Path root) {
        return HostCollection.standard(CollectorConfig.DEFAULT).collect(SnapshotHostSource.open(root)).withCollectedAt(Instant.now());
    }

    /** An inventory that expects a device the host no longer has, written where only its owner's mode makes it untrusted. */
    private static Path planted(Path tmp, Path host) throws Exception {
        Path state = Files.createDirectory(tmp.resolve("state"));
        Files.setPosixFilePermissions(state, PosixFilePermissions.fromString("rwx------"));
        new InventoryStore(state).save(Inventory.of(model(host), Instant.parse("2026-11-01T00:00:00Z"), Inventory.ACCEPTED));
        Path link = host.resolve("sys/class/infiniband/mlx5_6");
        Path real = link.toRealPath();
        Files.delete(link);
        try (var s = Files.walk(real)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
        return state.resolve("inventory.json");
    }

    @Test
    void anInventoryOthersCanWriteIsRefusedNotJudged(@TempDir Path tmp) throws Exception {
        Path host = Fixtures.copy("host-f-big", tmp.resolve("h"));
        Path file = planted(tmp, host);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-r--"));
        String before = Files.readString(file);
        InventoryKeeper keeper = new InventoryKeeper(new InventoryStore(file.getParent()));
        for (int i = 0; i < 3; i++) {
            Inventory inv = keeper.observe(model(host));
            assertThat(inv.devices()).extracting(Inventory.Device::name).hasSize(15).doesNotContain("mlx5_6");
        }
        assertThat(log.messages()).filteredOn(m -> m.contains("refused")).singleElement().asString()
                .contains(file.toString(), "can be written by", "left in place", "kept in memory", "fabricd inventory accept");
        assertThat(Files.readString(file)).isEqualTo(before); // neither read, nor moved, nor written over
        CliTest.Result diagnose = CliTest.run("diagnose", "--root", host.toString(), "--state-dir", file.getParent().toString());
        assertThat(diagnose.code()).isEqualTo(2);
        assertThat(diagnose.err()).contains(file.toString(), "can be written by").doesNotContain("\tat ");
    }

    @Test
    void anInventoryOfAnotherUserIsRefusedNotJudged(@TempDir Path tmp) throws Exception {
        Requirements.require(ProcessIdentity.current().uid() == 0, "root, to give a file to another user");
        Path host = Fixtures.copy("host-f-big", tmp.resolve("h"));
        Path file = planted(tmp, host);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        Files.setAttribute(file, "unix:uid", 65534, LinkOption.NOFOLLOW_LINKS);
        InventoryKeeper keeper = new InventoryKeeper(new InventoryStore(file.getParent()));
        assertThat(keeper.observe(model(host)).devices()).extracting(Inventory.Device::name).doesNotContain("mlx5_6");
        assertThat(log.messages()).filteredOn(m -> m.contains("refused")).singleElement().asString()
                .contains(file.toString(), "(uid 65534)", "left in place");
        assertThat(Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS)).isEqualTo(65534);
        // accept, as root, is the one that replaces it: the refused file is kept aside, said so
        CliTest.Result accept = CliTest.run("inventory", "accept", "--root", host.toString(), "--state-dir", file.getParent().toString());
        assertThat(accept.code()).as(accept.err()).isZero();
        assertThat(accept.err()).contains("(uid 65534)", "moved to");
        assertThat(Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS)).isEqualTo(0);
    }

    /** Another user's process: a shared (read) lock on a file it may read, held until it is killed. */
    public static final class ReadLock {
        public static void main(String[] args) throws Exception {
            FileChannel ch = FileChannel.open(Path.of(args[0]), StandardOpenOption.READ);
            ch.lock(0, Long.MAX_VALUE, true);
            System.out.println("held");
            System.out.flush();
            Thread.sleep(Duration.ofMinutes(2).toMillis());
        }
    }
}
