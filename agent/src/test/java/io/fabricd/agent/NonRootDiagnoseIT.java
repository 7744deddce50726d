package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code fabricd diagnose} run by a user who may not read the agent's state folder (uid 65534, as
 * the packaged jar and JVM flags), or by root without the capabilities that read other users' files:
 * it says what to run it as, and not to move a good file aside; so do {@code inventory accept} by a
 * user who may not write the folder and a configuration file the user may not read.
 */
class NonRootDiagnoseIT {
    private Path dir;

    @BeforeEach
    void folderOthersMayEnter() throws Exception {
        dir = Files.createTempDirectory("fabricd-nonroot");
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @AfterEach
    void removeIt() throws Exception {
        try (var files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    @Test
    void anUnreadableStateFolderAsksForRootNotForAMove() throws Exception {
        Requirements.require("0".equals(new String(new ProcessBuilder("id", "-u").start().getInputStream().readAllBytes(),
                StandardCharsets.UTF_8).strip()), "root, to run fabricd as another user");
        Path setpriv = Requirements.program("setpriv", "apt-get install util-linux");
        Path repo = Requirements.repoRoot();
        Path jar = Files.copy(repo.resolve("agent/target/fabricd.jar"), dir.resolve("fabricd.jar"));
        Path options = Files.copy(repo.resolve("packaging/jvm.options"), dir.resolve("jvm.options"));
        Path state = dir.resolve("state");
        CliTest.Result accepted = CliTest.run("inventory", "accept", "--demo", "--state-dir", state.toString());
        assertThat(accepted.code()).as(accepted.err()).isZero();
        Path file = state.resolve("inventory.json");

        // the service's folder (closed to others, another owner): not even the file's attributes can be read
        Files.setPosixFilePermissions(state, PosixFilePermissions.fromString("rwxr-x---"));
        String folder = refused(setpriv, options, jar, state);
        // the folder open, the file the service's alone
        Files.setPosixFilePermissions(state, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        String own = refused(setpriv, options, jar, state);
        for (String err : List.of(folder, own)) {
            assertThat(err).startsWith("fabricd: cannot read " + file + ": permission denied; this process runs as uid 65534, not root: "
                    + "run fabricd diagnose as root (sudo), or with CAP_DAC_READ_SEARCH, to read the agent's state folder")
                    .doesNotContainIgnoringCase("move").doesNotContain("\tat ");
        }
        // root in a container or unit that drops every capability, the file the service user's (65534 here)
        Files.setOwner(file, file.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("65534"));
        String noCaps = refused(List.of(setpriv.toString(), "--inh-caps=-all", "--bounding-set=-all"), options, jar, state);
        assertThat(noCaps).startsWith("fabricd: cannot read " + file + ": permission denied; this process runs as root without "
                + "CAP_DAC_READ_SEARCH or CAP_DAC_OVERRIDE (a container or a unit that drops capabilities): give it CAP_DAC_READ_SEARCH")
                .doesNotContainIgnoringCase("move");
        assertThat(file).exists();
        try (var left = Files.list(state)) {
            assertThat(left.map(p -> p.getFileName().toString())).as("nothing moved aside").noneMatch(n -> n.contains("unreadable"));
        }
    }

    /** {@code inventory accept} into root's state folder, and a configuration only root may read: run it as root, not "another folder". */
    @Test
    void aUserIsToldToRunAsRootToWriteTheStateOrReadTheConfig() throws Exception {
        Requirements.require("0".equals(new String(new ProcessBuilder("id", "-u").start().getInputStream().readAllBytes(),
                StandardCharsets.UTF_8).strip()), "root, to run fabricd as another user");
        List<String> user = List.of(Requirements.program("setpriv", "apt-get install util-linux").toString(), "--reuid=65534",
                "--regid=65534", "--clear-groups");
        Path repo = Requirements.repoRoot();
        Path jar = Files.copy(repo.resolve("agent/target/fabricd.jar"), dir.resolve("fabricd.jar"));
        Path options = Files.copy(repo.resolve("packaging/jvm.options"), dir.resolve("jvm.options"));
        Path state = Files.createDirectories(dir.resolve("state"));
        Files.setPosixFilePermissions(state, PosixFilePermissions.fromString("rwxr-xr-x"));

        String accept = refused(user, options, jar, "inventory", "accept", "--demo", "--state-dir", state.toString());
        assertThat(accept).startsWith("fabricd: cannot write " + state.resolve("inventory.json") + ": permission denied; this process runs "
                + "as uid 65534, not root: run fabricd inventory accept as root (sudo) to write the agent's state folder")
                .doesNotContain("give a folder", "\tat ");

        Path config = dir.resolve("fabricd.yaml");
        Files.writeString(config, "listen: 127.0.0.1:9530\n");
        Files.setPosixFilePermissions(config, PosixFilePermissions.fromString("rw-------"));
        String unreadable = refused(user, options, jar, "diagnose", "--demo", "--config", config.toString());
        assertThat(unreadable).startsWith("fabricd: config file " + config + " cannot be read: permission denied; run fabricd as root or "
                + "make it readable by the user running fabricd").doesNotContain("\tat ");
    }

    /**
     * The .deb's layout: the state folder the service user's (65534 here), mode 0700. Root accepts
     * into it (`sudo fabricd inventory accept`), and the service user reads what root wrote.
     */
    @Test
    void rootAcceptsIntoTheServiceUsersFolderAndTheServiceReadsIt() throws Exception {
        Requirements.require("0".equals(new String(new ProcessBuilder("id", "-u").start().getInputStream().readAllBytes(),
                StandardCharsets.UTF_8).strip()), "root, to run fabricd as another user");
        List<String> service = List.of(Requirements.program("setpriv", "apt-get install util-linux").toString(), "--reuid=65534",
                "--regid=65534", "--clear-groups");
        Path repo = Requirements.repoRoot();
        Path jar = Files.copy(repo.resolve("agent/target/fabricd.jar"), dir.resolve("fabricd.jar"));
        Path options = Files.copy(repo.resolve("packaging/jvm.options"), dir.resolve("jvm.options"));
        Path state = Files.createDirectories(dir.resolve("state"));
        Files.setPosixFilePermissions(state, PosixFilePermissions.fromString("rwx------"));
        Files.setOwner(state, state.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("65534"));

        Ran accept = run(List.of(), options, jar, "inventory", "accept", "--demo", "--state-dir", state.toString());
        assertThat(accept.code()).as(accept.err()).isZero();
        assertThat(accept.out()).contains("accepted " + state.resolve("inventory.json"));
        Ran show = run(service, options, jar, "inventory", "show", "--demo", "--state-dir", state.toString());
        assertThat(show.code()).as(show.err()).isZero();
        assertThat(show.out()).contains(state.resolve("inventory.json") + ": ", "(accepted ");
    }

    private static String refused(Path setpriv, Path options, Path jar, Path state) throws Exception {
        return refused(List.of(setpriv.toString(), "--reuid=65534", "--regid=65534", "--clear-groups"), options, jar, state);
    }

    /** {@code diagnose --demo --state-dir STATE} of the packaged jar under {@code as} (setpriv and its options): exit 2, its stderr. */
    private static String refused(List<String> as, Path options, Path jar, Path state) throws Exception {
        return refused(as, options, jar, "diagnose", "--demo", "--state-dir", state.toString());
    }

    /** {@code args} to the packaged jar under {@code as}: exit 2, its stderr. */
    private static String refused(List<String> as, Path options, Path jar, String... args) throws Exception {
        Ran r = run(as, options, jar, args);
        assertThat(r.code()).as(r.err()).isEqualTo(2);
        return r.err();
    }

    private record Ran(int code, String out, String err) {
    }

    /** {@code args} to the packaged jar under {@code as} (none: this process's user). */
    private static Ran run(List<String> as, Path options, Path jar, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(as);
        cmd.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "@" + options, "-jar", jar.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).directory(jar.getParent().toFile()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8); // a few lines each: no pipe fills
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        return new Ran(p.exitValue(), out, err);
    }
}
