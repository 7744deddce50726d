package io.fabricd.agent;

import static io.fabricd.testing.PromText.s;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.testing.PromText;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** bin/fabricd run --demo as a real process: ready, counters advancing, clean stop on SIGTERM. */
class DaemonProcessIT {

    @Test
    void demoDaemon() throws Exception {
        Path repo = Requirements.repoRoot();
        int port = NodeExporterParityIT.freePort();
        Path cfg = Files.createTempFile("fabricd", ".yaml");
        Files.writeString(cfg, "collection:\n  interval: 500ms\n");
        Path log = Files.createTempFile("fabricd", ".log");
        Process p = new ProcessBuilder(repo.resolve("bin/fabricd").toString(), "run", "--demo",
                "--listen", "127.0.0.1:" + port, "--config", cfg.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            int status = 0;
            while (status != 200 && System.nanoTime() < deadline) {
                try {
                    status = Http.get(port, "/readyz").statusCode();
                } catch (IOException e) {
                    Thread.sleep(100);
                }
            }
            assertThat(status).isEqualTo(200);
            String key = s("fabric_port_transmit_bytes_total", "device", "mlx5_0", "port", "1");
            double first = PromText.parse(Http.get(port, "/metrics").body()).get(key);
            Thread.sleep(1500);
            Map<String, Double> later = PromText.parse(Http.get(port, "/metrics").body());
            assertThat(later.get(key)).isGreaterThan(first);
            assertThat(later.keySet()).filteredOn(k -> k.startsWith("fabric_port_info{")).hasSize(8);

            // stopped for 4 s (8 intervals) and continued: one collection then, not the 8 missed back to back
            double before = collections(port);
            assertThat(new ProcessBuilder("kill", "-STOP", Long.toString(javaPid(p))).start().waitFor()).isZero();
            Thread.sleep(4000);
            assertThat(new ProcessBuilder("kill", "-CONT", Long.toString(javaPid(p))).start().waitFor()).isZero();
            Thread.sleep(300);
            assertThat(collections(port) - before).isBetween(0.0, 2.0);
            assertThat(Files.readString(log)).contains("collection resumed after", "missed collections are skipped");
        } finally {
            p.destroy();
            assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(p.exitValue()).isIn(0, 143);
    }

    private static double collections(int port) throws Exception {
        return PromText.parse(Http.get(port, "/metrics?name[]=fabric_agent_collection_seconds").body())
                .get("fabric_agent_collection_seconds_count");
    }

    /** The JVM under bin/fabricd (the script execs java, so usually the process itself). */
    private static long javaPid(Process p) {
        return p.descendants().filter(h -> h.info().command().orElse("").endsWith("java")).findFirst()
                .map(ProcessHandle::pid).orElse(p.pid());
    }
}
