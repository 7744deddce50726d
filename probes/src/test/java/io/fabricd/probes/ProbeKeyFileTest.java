package io.fabricd.probes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabricd.natives.ProcessIdentity;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The probe key file: its one rule (owner, group, mode), refused when it is no file (a pipe would hang the start), missing told from denied, warned about when weak. */
class ProbeKeyFileTest {
    private static final Logger LOG = Logger.getLogger(ProbeKey.class.getName());
    private final List<String> warnings = new ArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            warnings.add(r.getMessage());
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void listen() {
        LOG.addHandler(capture);
        LOG.setUseParentHandlers(false); // the warnings are this test's subject, not noise for the test log
    }

    @AfterEach
    void stop() {
        LOG.removeHandler(capture);
        LOG.setUseParentHandlers(true);
    }

    private static Path key(Path dir, String text, String mode) throws Exception {
        Path f = dir.resolve("key");
        Files.deleteIfExists(f);
        Files.writeString(f, text);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(mode));
        return f;
    }

    private static final String KEY = "3f9c2b1e7d6a5f4e8c0b9a1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f";

    @ParameterizedTest
    @ValueSource(strings = {"rw-r-----", "rw-------", "r--r-----", "r--------"})
    void aKeyOfTheRuleIsReadWithoutAWarning(String mode, @TempDir Path tmp) throws Exception {
        ProbeKey k = ProbeKey.fromFile(key(tmp, KEY + "\n", mode));
        assertThat(k.tag("x")).hasSize(ProbeKey.TAG_BYTES);
        assertThat(warnings).isEmpty();
    }

    @Test
    void aKeyOthersMayReadOrChangeIsRefusedWithTheRule(@TempDir Path tmp) throws Exception {
        assertThatThrownBy(() -> ProbeKey.fromFile(key(tmp, KEY, "rw-r--r--")))
                .hasMessageContaining("has mode 0644: every user can read it")
                .hasMessageContaining("can forge probes")
                .hasMessageContaining("owner root, group fabricd, mode 0640 (chown root:fabricd " + tmp.resolve("key") + "; chmod 0640 ");
        assertThatThrownBy(() -> ProbeKey.fromFile(key(tmp, KEY, "rw-rw----"))).hasMessageContaining("has mode 0660: users other than its owner can change it");
        assertThatThrownBy(() -> ProbeKey.fromFile(key(tmp, KEY, "rw-----w-"))).hasMessageContaining("has mode 0602: users other than its owner");
        assertThat(warnings).isEmpty();
    }

    @Test
    void aWeakKeyIsWarnedAbout(@TempDir Path tmp) throws Exception {
        ProbeKey.fromFile(key(tmp, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "rw-------"));
        assertThat(warnings).singleElement().asString().contains("weak key", "1 distinct", "openssl rand -hex 32");
        warnings.clear();
        ProbeKey.fromFile(key(tmp, "0123456789abcdef", "rw-------"));
        assertThat(warnings).singleElement().asString().contains("weak key (16 bytes");
    }

    /**
     * A key behind a folder the reader may not enter is "permission denied", naming the folder and
     * the rule, never "does not exist". Root passes every permission check, so as root the read runs
     * in a JVM of user nobody.
     */
    @Test
    void permissionDeniedIsToldApartFromMissing(@TempDir Path tmp) throws Exception {
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path closed = Files.createDirectory(tmp.resolve("closed"));
        Path key = key(closed, KEY, "rw-r-----");
        Files.setPosixFilePermissions(closed, PosixFilePermissions.fromString("rwx------"));
        String message;
        String user;
        if ("root".equals(System.getProperty("user.name"))) {
            user = "nobody";
            message = readAsNobody(tmp, key);
        } else {
            user = System.getProperty("user.name");
            Files.setPosixFilePermissions(closed, PosixFilePermissions.fromString("---------"));
            message = refusal(key);
            Files.setPosixFilePermissions(closed, PosixFilePermissions.fromString("rwx------"));
        }
        assertThat(message).contains("cannot read probe key file " + key + " as user " + user + ": permission denied (the folder "
                + closed + " is closed to that user)", "owner root, group fabricd, mode 0640", "adduser " + user + " fabricd")
                .doesNotContain("does not exist");
        assertThat(refusal(tmp.resolve("missing"))).isEqualTo("probe key file " + tmp.resolve("missing") + " does not exist");
    }

    /** A key of the mode rule's stricter kind that the reader does not own (root's 0600, the agent's user reading): the file's owner and mode say why. */
    @Test
    void aKeyTheReaderMayNotOpenNamesItsOwnerAndMode(@TempDir Path tmp) throws Exception {
        if (!"root".equals(System.getProperty("user.name"))) {
            assertThat(System.getenv("CI")).as("CI runs as root: this test must run there, not be skipped").isNotEqualTo("true");
            Assumptions.abort("needs root to read the key as another user (nobody)");
        }
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path key = key(tmp, KEY, "rw-------");
        assertThat(readAsNobody(tmp, key)).contains("cannot read probe key file " + key + " as user nobody: permission denied (the file is root:root 0600)",
                "group fabricd, mode 0640");
    }

    /**
     * The rule's owner and group, for the readers fabricd has: the key root's or the reader's own, and
     * a group that may read it one the reader is in (the .deb's group fabricd; a Kubernetes Secret's
     * fsGroup). Another owner could rewrite the key; a group the reader is not in lets its members
     * read it. The reader's ids are given, so that this runs as any user.
     */
    @Test
    void aKeyOfAnotherOwnerOrReadableByAGroupOutsideTheReadersIsRefused(@TempDir Path tmp) throws Exception {
        Path k = key(tmp, KEY, "rw-r-----");
        long uid = ((Number) Files.getAttribute(k, "unix:uid")).longValue();
        long gid = ((Number) Files.getAttribute(k, "unix:gid")).longValue();
        assertThat(ProbeKeyFile.read(k, new ProcessIdentity(uid, uid, Set.of(gid), null))).isEqualTo(KEY);
        assertThat(refusal(k, new ProcessIdentity(uid, uid, Set.of(gid + 1), null))).startsWith("probe key file " + k + " can be read by ")
                .contains("gid " + gid + "), which is neither fabricd nor a group of the user reading it (",
                        ": every member of it can read the key, and anyone who can read or change the key can forge probes",
                        "make it owner root, group fabricd, mode 0640 (chown root:fabricd " + k + "; chmod 0640 " + k + ")");
        // readable by its owner alone: its group does not matter
        Files.setPosixFilePermissions(k, PosixFilePermissions.fromString("r--------"));
        assertThat(ProbeKeyFile.read(k, new ProcessIdentity(uid, uid, Set.of(gid + 1), null))).isEqualTo(KEY);
        if (uid == 0) {
            // root's key, read by another user: a Secret's file, group-readable for the pod's fsGroup
            Files.setPosixFilePermissions(k, PosixFilePermissions.fromString("r--r-----"));
            assertThat(ProbeKeyFile.read(k, new ProcessIdentity(65534, 65534, Set.of(65534L, gid), null))).isEqualTo(KEY);
        } else {
            assertThat(refusal(k, new ProcessIdentity(uid + 1, uid + 1, Set.of(gid), null))).startsWith("probe key file " + k + " belongs to user ")
                    .contains("uid " + uid + "), not to root or to the user reading it (", "): that user can change the key and its mode");
        }
    }

    /** The same with real owners: chown nobody:users k; chmod 0640 k, read by root. Needs root to give a file away. */
    @Test
    void aKeyGivenToNobodyOrToGroupUsersIsRefusedAsRoot(@TempDir Path tmp) throws Exception {
        if (!"root".equals(System.getProperty("user.name"))) {
            assertThat(System.getenv("CI")).as("CI runs as root: this test must run there, not be skipped").isNotEqualTo("true");
            Assumptions.abort("needs root to give the key to another user and group");
        }
        Path k = key(tmp, KEY, "rw-r-----");
        Files.setAttribute(k, "unix:gid", 100);
        Files.setAttribute(k, "unix:uid", 65534);
        assertThatThrownBy(() -> ProbeKey.fromFile(k)).hasMessageContaining("probe key file " + k + " belongs to ")
                .hasMessageContaining("(uid 65534), not to root or to the user reading it (root, uid 0)");
        Files.setAttribute(k, "unix:uid", 0);
        assertThatThrownBy(() -> ProbeKey.fromFile(k)).hasMessageContaining("probe key file " + k + " can be read by ")
                .hasMessageContaining("(gid 100), which is neither fabricd nor a group of the user reading it (root, uid 0)");
        Files.setAttribute(k, "unix:gid", 0);
        assertThat(ProbeKey.fromFile(k).tag("x")).hasSize(ProbeKey.TAG_BYTES);
        assertThat(warnings).isEmpty();
    }

    /** This process's ids are the ones its new files get: the owner, and a group it is in. */
    @Test
    void theReadersIdsAreThisProcesss(@TempDir Path tmp) throws Exception {
        Path f = Files.writeString(tmp.resolve("f"), "x");
        ProcessIdentity me = ProcessIdentity.current();
        assertThat(me.uid()).isEqualTo(((Number) Files.getAttribute(f, "unix:uid")).longValue());
        assertThat(me.groups()).contains(((Number) Files.getAttribute(f, "unix:gid")).longValue());
        assertThat(ProcessIdentity.parse(List.of("Name:\tjava", "Uid:\t1000\t1001\t1001\t1001", "Gid:\t100\t101\t101\t101",
                "Groups:\t4 27 101 ")).groups()).containsExactlyInAnyOrder(101L, 4L, 27L);
        assertThat(ProcessIdentity.parse(List.of("Uid:\t1000\t1001\t1001\t1001", "Gid:\t100\t101\t101\t101", "Groups:")).uid()).isEqualTo(1001);
    }

    private static String refusal(Path key, ProcessIdentity reader) {
        try {
            ProbeKeyFile.read(key, reader);
            return "read";
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    private static String refusal(Path key) {
        try {
            ProbeKeyFile.read(key, ProcessIdentity.current());
            return "read";
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    /** ProbeKeyFile read by user nobody: its class and {@link Reader} copied where nobody can load them. */
    private static String readAsNobody(Path tmp, Path key) throws Exception {
        for (Class<?> c : new Class<?>[] {ProbeKeyFile.class, ProcessIdentity.class, Reader.class}) {
            Path classes = Files.createDirectories(tmp.resolve("classes").resolve(c.getPackageName().replace('.', '/')));
            String name = c.getName().substring(c.getPackageName().length() + 1) + ".class";
            try (var in = c.getResourceAsStream(name)) {
                Files.write(classes.resolve(name), in.readAllBytes());
            }
        }
        try (var walk = Files.walk(tmp.resolve("classes"))) {
            for (Path p : walk.toList()) {
                Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(Files.isDirectory(p) ? "rwxr-xr-x" : "rw-r--r--"));
            }
        }
        Process p = new ProcessBuilder("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Duser.name=nobody", "-cp", tmp.resolve("classes").toString(),
                Reader.class.getName(), key.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return out;
    }

    /** Prints what reading the key file gives: "read", or the refusal. */
    public static final class Reader {
        private Reader() {
        }

        public static void main(String[] args) {
            try {
                ProbeKeyFile.read(Path.of(args[0]), ProcessIdentity.current());
                System.out.println("read");
            } catch (IllegalArgumentException e) {
                System.out.println(e.getMessage());
            }
        }
    }

    @Test
    @Timeout(10)
    void aPipeAFolderAHugeOrAnEmptyFileIsRefusedAtOnce(@TempDir Path tmp) throws Exception {
        Path fifo = tmp.resolve("fifo");
        assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
        assertThatThrownBy(() -> ProbeKey.fromFile(fifo)).hasMessageContaining("is not a regular file");
        assertThatThrownBy(() -> ProbeKey.fromFile(tmp)).hasMessageContaining("is a folder");
        assertThatThrownBy(() -> ProbeKey.fromFile(tmp.resolve("nope"))).hasMessageContaining("does not exist");
        Path big = Files.write(tmp.resolve("big"), new byte[1 << 20]);
        assertThatThrownBy(() -> ProbeKey.fromFile(big)).hasMessageContaining("larger than 4096 bytes");
        assertThatThrownBy(() -> ProbeKey.fromFile(key(tmp, " \n", "rw-------"))).hasMessageContaining("is empty");
    }
}
