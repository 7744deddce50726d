package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bin/fabricd's stdout is the command's result alone while the JVM has something to say: a warning
 * in unified logging (a shared archive written for another jar) and what an -XX diagnostic prints
 * (-XX:+PrintCompilation) both go to stderr, and diagnose's, preflight's and inventory's JSON and
 * the metrics text stay whole (packaging/jvm.options), with the default flags or flags of the user's
 * that replace them (StdoutResultTest covers the process's own threads).
 */
class ReportOutputIT {
    private static final ObjectMapper STRICT = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    record Run(int code, String out, String err) {
    }

    @Test
    void theJvmsOwnOutputNeverReachesStdout(@TempDir Path tmp) throws Exception {
        Path repo = Requirements.repoRoot();
        Path other = tmp.resolve("other.jar");
        Files.copy(repo.resolve("agent/target/fabricd.jar"), other);
        Path stale = tmp.resolve("other.jsa");
        Process write = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:ArchiveClassesAtExit=" + stale, "-jar", other.toString(), "--version").redirectErrorStream(true).start();
        write.getInputStream().readAllBytes();
        assertThat(write.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(stale).as("a dynamic archive of another jar").exists();
        Map<String, String> env = Map.of("FABRICD_CDS", "off",
                "FABRICD_EXTRA_JAVA_OPTS", "-XX:SharedArchiveFile=" + stale + " -XX:+PrintCompilation");

        Run diagnose = fabricd(repo, env, "diagnose", "--demo", "--format", "json", "--fail-on", "never");
        assertThat(diagnose.code()).as(diagnose.err()).isZero();
        assertThat(STRICT.readTree(diagnose.out()).get("findings").isArray()).isTrue();
        assertThat(diagnose.err()).as("the JVM did speak, on stderr")
                .contains("[warning][cds").containsPattern("(?m)^ +\\d+ +\\d+ .*::");

        Run metrics = fabricd(repo, env, "metrics", "--demo");
        assertThat(metrics.code()).as(metrics.err()).isZero();
        assertThat(metrics.out().lines()).isNotEmpty().allSatisfy(l -> assertThat(l).matches("(# (HELP|TYPE) )?fabric_.*"));

        Path state = Files.createDirectories(tmp.resolve("state"));
        assertThat(fabricd(repo, env, "inventory", "accept", "--demo", "--state-dir", state.toString()).code()).isZero();
        Run show = fabricd(repo, env, "inventory", "show", "--demo", "--state-dir", state.toString(), "--format", "json");
        assertThat(show.code()).as(show.err()).isZero();
        assertThat(STRICT.readTree(show.out()).isObject()).isTrue();

        Path key = tmp.resolve("probe.key");
        Files.writeString(key, "c2VjcmV0LWtleS1vZi10aGUtZmFicmljLTMyLWJ5dGVzIQ==\n");
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
        Run preflight = fabricd(repo, env, "preflight", "--nodes", "a=127.0.0.1:1,b=127.0.0.1:2", "--key-file", key.toString(),
                "--timeout", "10s", "--format", "json");
        assertThat(preflight.code()).as(preflight.err()).isEqualTo(2);
        assertThat(STRICT.readTree(preflight.out()).get("nodes")).hasSize(2);

        // flags that replace the defaults still come after those that send the JVM's output to stderr
        Run replaced = fabricd(repo, Map.of("FABRICD_JAVA_OPTS", "-Xmx128m -XX:+PrintCommandLineFlags"),
                "diagnose", "--demo", "--format", "json", "--fail-on", "never");
        assertThat(replaced.code()).as(replaced.err()).isZero();
        assertThat(STRICT.readTree(replaced.out()).get("findings").isArray()).isTrue();
        assertThat(replaced.err()).as("the JVM did speak, on stderr").contains("-XX:MaxHeapSize=134217728", "-XX:+PrintCommandLineFlags");
    }

    private static Run fabricd(Path repo, Map<String, String> env, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(repo.resolve("bin/fabricd").toString()));
        cmd.addAll(List.of(args));
        Path err = Files.createTempFile("fabricd", ".err");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(err.toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        try {
            return new Run(p.exitValue(), out, Files.readString(err));
        } finally {
            Files.delete(err);
        }
    }
}
