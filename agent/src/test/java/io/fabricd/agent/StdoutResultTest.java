package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A command's stdout is its result alone, as a separate process shows it: another thread printing to
 * System.out while the command runs lands on stderr, a reader that is late on a non-blocking pipe
 * gets every byte, and a result that cannot be written whole is an error (exit 2), not a success.
 * The JVM's own output is bin/fabricd's part (ReportOutputIT).
 */
class StdoutResultTest {
    private static final ObjectMapper STRICT = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    record Run(int code, String out, String err) {
    }

    @Test
    void diagnoseJsonIsOneDocumentWhileAnotherThreadPrints() throws Exception {
        Run r = fabricd(null, "diagnose", "--demo", "--format", "json", "--fail-on", "never");
        assertThat(r.code()).as(r.err()).isZero();
        JsonNode doc = STRICT.readTree(r.out());
        assertThat(doc.get("host").asText()).isEqualTo("demo-gpu-node-01");
        assertThat(r.out()).doesNotContain("bystander");
        assertThat(r.err()).as("the other thread did print, to stderr").contains("bystander line 0");
    }

    @Test
    void metricsAndInventoryAreTheirResultAlone(@TempDir Path tmp) throws Exception {
        Run m = fabricd(null, "metrics", "--demo");
        assertThat(m.code()).as(m.err()).isZero();
        assertThat(m.out().lines()).isNotEmpty().allSatisfy(l -> assertThat(l).matches("(# (HELP|TYPE) )?fabric_.*"));
        assertThat(m.err()).contains("bystander line 0");

        CliTest.Result accepted = CliTest.run("inventory", "accept", "--demo", "--state-dir", tmp.toString());
        assertThat(accepted.code()).as(accepted.err()).isZero();
        Run show = fabricd(null, "inventory", "show", "--demo", "--state-dir", tmp.toString(), "--format", "json");
        assertThat(show.code()).as(show.err()).isZero();
        assertThat(STRICT.readTree(show.out()).isObject()).isTrue();
        assertThat(show.err()).contains("bystander line 0");
    }

    @Test
    void aResultThatCannotBeWrittenIsAnErrorNotASuccess() throws Exception {
        // /dev/full: every write fails with ENOSPC, as on a full disk
        Run r = fabricd(new File("/dev/full"), "diagnose", "--demo", "--format", "json", "--fail-on", "never");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("fabricd: cannot write the output to stdout: No space left on device");
    }

    @Test
    void aLateReaderOfANonBlockingPipeGetsEveryByte() throws Exception {
        // a pipe whose writing end is non-blocking (a parent's choice, shared by its children) and a
        // reader that comes late, as on a loaded machine: the pipe fills and a write fails with
        // EAGAIN, which System.out would take for the end of the output
        Path python = Requirements.program("python3", "apt-get install python3");
        String harness = String.join("\n",
                "import fcntl, os, subprocess, sys, termios, time, struct",
                "r, w = os.pipe()",
                "fcntl.fcntl(w, fcntl.F_SETFL, fcntl.fcntl(w, fcntl.F_GETFL) | os.O_NONBLOCK)",
                "p = subprocess.Popen(sys.argv[1:], stdout=w)",
                "os.close(w)",
                "def queued():",
                "    return struct.unpack('i', fcntl.ioctl(r, termios.FIONREAD, b'\\0\\0\\0\\0'))[0]",
                "while p.poll() is None and queued() < 65536:",
                "    time.sleep(0.01)",
                "time.sleep(0.5)",
                "out = b''",
                "while True:",
                "    chunk = os.read(r, 65536)",
                "    if not chunk:",
                "        break",
                "    out += chunk",
                "sys.stdout.buffer.write(out)",
                "sys.exit(p.wait())");
        List<String> cmd = new ArrayList<>(List.of(python.toString(), "-c", harness));
        cmd.addAll(java(Main.class, "metrics", "--demo"));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
        assertThat(out.length()).as("more than the pipe holds").isGreaterThan(100_000);
        assertThat(out).endsWith("\n");
        assertThat(out.lines().filter(l -> l.startsWith("# TYPE ")))
                .containsExactlyElementsOf(CliTest.run("metrics", "--demo").out().lines().filter(l -> l.startsWith("# TYPE ")).toList());
    }

    @Test
    void aReaderThatStopsEarlyIsNotToldSoButTheExitSaysTheOutputIsNotWhole() throws Exception {
        // `fabricd metrics | head -1`: the reader knows it stopped; the exit code says the output was cut
        Process p = new ProcessBuilder(java(Main.class, "metrics", "--demo")).start();
        p.getInputStream().close();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(2);
        assertThat(err).isEmpty();
    }

    /** {@code java MAIN ARGS} on the test classpath. */
    private static List<String> java(Class<?> main, String... args) {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-cp",
                System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")), main.getName()));
        cmd.addAll(List.of(args));
        return cmd;
    }

    /** {@code fabricd ARGS} in a JVM of its own with {@link PrintingBystander} beside it; stdout to {@code out} when given. */
    private static Run fabricd(File out, String... args) throws Exception {
        List<String> cmd = java(PrintingBystander.class, args);
        Path err = Files.createTempFile("fabricd", ".err");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(err.toFile());
        if (out != null) {
            pb.redirectOutput(out);
        }
        Process p = pb.start();
        String stdout = out == null ? new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8) : "";
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        try {
            return new Run(p.exitValue(), stdout, Files.readString(err));
        } finally {
            Files.delete(err);
        }
    }
}
