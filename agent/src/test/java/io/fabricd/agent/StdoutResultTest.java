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
 * System.out while the command runs lands on stderr, and a result that cannot be written whole is
 * an error (exit 2), not a success. The JVM's own output is bin/fabricd's part (ReportOutputIT).
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

    /** {@code fabricd ARGS} in a JVM of its own with {@link PrintingBystander} beside it; stdout to {@code out} when given. */
    private static Run fabricd(File out, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-cp",
                System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
                PrintingBystander.class.getName()));
        cmd.addAll(List.of(args));
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
