package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.agent.demo.DemoHost;
import io.fabricd.collectors.Fixtures;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code promtool check metrics} (Prometheus's lint: no type names in metric names, counters end in
 * _total, base units, help on every family) passes without a word on what fabricd exports for every
 * fixture, every real capture and the demo, and on the running agent's whole /metrics (JVM,
 * Vert.x and Micrometer families included).
 */
class PromtoolLintIT {

    /** Every snapshot folder among the fixtures and the real captures, and the two ttar trees extracted. */
    private static List<Path> roots(Path tmp) throws IOException {
        List<Path> roots = new ArrayList<>();
        try (Stream<Path> s = Files.list(Fixtures.dir())) {
            s.filter(p -> Files.isDirectory(p.resolve("sys"))).sorted().forEach(roots::add);
        }
        try (Stream<Path> s = Files.list(Fixtures.dir().resolve("real"))) {
            s.filter(p -> Files.isDirectory(p.resolve("sys"))).sorted().forEach(roots::add);
        }
        roots.add(Fixtures.procfs(tmp.resolve("procfs")));
        roots.add(Fixtures.nodeExporter(tmp.resolve("node-exporter")));
        return roots;
    }

    private static String lint(Path promtool, String exposition) throws Exception {
        Process p = new ProcessBuilder(promtool.toString(), "check", "metrics").redirectErrorStream(true).start();
        p.getOutputStream().write(exposition.getBytes(StandardCharsets.UTF_8));
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return p.waitFor() == 0 ? out : "exit " + p.exitValue() + ": " + out;
    }

    @Test
    void everyFixtureAndCaptureIsLintClean(@TempDir Path tmp) throws Exception {
        Path promtool = Requirements.program("promtool", "apt-get install prometheus");
        List<Path> roots = roots(tmp);
        assertThat(roots).hasSizeGreaterThanOrEqualTo(12);
        for (Path root : roots) {
            CliTest.Result r = CliTest.run("metrics", "--root", root.toString());
            assertThat(r.code()).as(root.toString()).isZero();
            assertThat(lint(promtool, r.out())).as(root.toString()).isEmpty();
        }
        CliTest.Result demo = CliTest.run("metrics", "--demo");
        assertThat(lint(promtool, demo.out())).as("demo").isEmpty();
    }

    @Test
    void theRunningAgentsWholeExpositionIsLintClean() throws Exception {
        Path promtool = Requirements.program("promtool", "apt-get install prometheus");
        try (Agent a = AgentHttpTest.start(DemoHost.open(), Duration.ofHours(1))) {
            assertThat(a.awaitReady(Duration.ofSeconds(20))).isTrue();
            String body = Http.get(a.port(), "/metrics").body();
            assertThat(body).contains("jvm_memory_used_bytes", "fabric_agent_collection_seconds", "fabric_port_pma_total");
            assertThat(lint(promtool, body)).isEmpty();
        }
    }
}
