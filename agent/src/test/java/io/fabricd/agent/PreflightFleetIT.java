package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.testing.PrivateFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fabricd preflight --bandwidth none} twenty times in a row over 24 agents started for it as
 * real processes ({@code bin/fabricd run}) on loopback, without a pingmesh (no peers: a site that runs
 * the gate alone). A healthy set passes every time: the first run, over agents that have just become
 * ready (their first endpoint fetches take seconds on a shared machine, within what a round's 10 s
 * leave after its probes), as well as the runs after it back to back, within the rounds an agent
 * takes a minute ({@code ProbeRound.PER_MINUTE}); every link measured, nothing unknown, the exit code
 * 0 and the JSON saying pass with empty lists.
 */
class PreflightFleetIT {
    private static final int AGENTS = 24;
    private static final int RUNS = 20;
    private static final Pattern SERVING = Pattern.compile("fabricd serving .* on http://127\\.0\\.0\\.1:(\\d+)/metrics");

    @Test
    void aHealthyFreshlyStartedFleetPassesTwentyRunsInARow(@TempDir Path tmp) throws Exception {
        Path repo = Requirements.repoRoot();
        Path key = PrivateFiles.write(tmp.resolve("key"), PreflightEndToEndTest.KEY + "\n");
        // names of this run's own: agents hold a host-wide lock on their node name
        String prefix = "fl" + ProcessHandle.current().pid() + "n";
        List<Process> agents = new ArrayList<>();
        StringBuilder nodes = new StringBuilder();
        try {
            for (int i = 1; i <= AGENTS; i++) {
                String name = String.format("%s%02d", prefix, i);
                Path cfg = tmp.resolve(name + ".yaml");
                Files.writeString(cfg, "probe:\n  key_file: '" + key + "'\n  udp_port: 0\n  node_name: " + name + "\n  peers: []\n");
                // a port of its own choosing (one picked here could be taken before it binds): its log says which
                agents.add(new ProcessBuilder(repo.resolve("bin/fabricd").toString(), "run", "--root",
                        repo.resolve("collectors/src/test/fixtures/host-a-ib").toString(), "--config", cfg.toString(), "--listen",
                        "127.0.0.1:0").redirectErrorStream(true).redirectOutput(tmp.resolve(name + ".log").toFile()).start());
            }
            for (int i = 1; i <= AGENTS; i++) {
                String name = String.format("%s%02d", prefix, i);
                int port = awaitReady(agents.get(i - 1), tmp.resolve(name + ".log"));
                nodes.append(nodes.length() == 0 ? "" : ",").append(name).append("=127.0.0.1:").append(port);
            }
            List<String> took = new ArrayList<>();
            for (int run = 1; run <= RUNS; run++) {
                long t0 = System.nanoTime();
                // 24 agents and the gate share this machine's cores: every agent is a starved host by
                // construction (it holds probes for milliseconds where a real host takes microseconds), and
                // which one the scheduler starves most in a round's second is chance. The floor says so; the
                // slow-host judgement itself is held by GateSlowHostTest and PreflightSlowHostTest.
                CliTest.Result r = CliTest.run("preflight", "--nodes", nodes.toString(), "--key-file", key.toString(), "--bandwidth", "none",
                        "--host-floor", "1s", "--format", "json");
                took.add(String.format("%.1f", (System.nanoTime() - t0) / 1e9));
                String all = "run " + run + ": " + r.err() + r.out();
                assertThat(r.code()).as(all).isZero();
                JsonNode j = new ObjectMapper().readTree(r.out());
                assertThat(j.get("verdict").asText()).as(all).isEqualTo("pass");
                assertThat(j.get("exit_code").asInt()).as(all).isZero();
                assertThat(j.get("excluded").asText()).as(all).isEmpty();
                assertThat(j.get("unknown").asText()).as(all).isEmpty();
                assertThat(j.get("bad_links")).as(all).isEmpty();
                assertThat(j.get("nodes")).as(all).hasSize(AGENTS).allSatisfy(n -> assertThat(n.get("verdict").asText()).isEqualTo("pass"));
                // the ring, each link with its probes: no "0 probes", no repair round needed
                assertThat(j.get("links")).as(all).hasSize(AGENTS).allSatisfy(l -> {
                    assertThat(l.get("verdict").asText()).isEqualTo("pass");
                    assertThat(l.at("/evidence/sent").asLong()).isGreaterThanOrEqualTo(20);
                });
                JsonNode round = j.get("phases").get(1);
                assertThat(round.get("phase").asText()).as(all).isEqualTo("probe_round");
                assertThat(round.get("status").asText()).as(all).isEqualTo("complete");
                assertThat(round.get("done").asInt()).as(all).isEqualTo(AGENTS);
            }
            System.out.println("preflight over " + AGENTS + " freshly started agents, " + RUNS + " runs, seconds each: " + took);
        } finally {
            for (Process p : agents) {
                p.destroy();
            }
            for (Process p : agents) {
                if (!p.waitFor(20, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            }
        }
    }

    /** The agent's HTTP port once it answers /readyz 200. */
    private static int awaitReady(Process p, Path log) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
        while (System.nanoTime() < deadline) {
            assertThat(p.isAlive()).as("agent ended: " + Files.readString(log)).isTrue();
            Matcher m = SERVING.matcher(Files.readString(log));
            if (m.find()) {
                int port = Integer.parseInt(m.group(1));
                try {
                    if (Http.get(port, "/readyz").statusCode() == 200) {
                        return port;
                    }
                } catch (IOException e) {
                    // not answering yet
                }
            }
            Thread.sleep(200);
        }
        throw new AssertionError("agent not ready within 180 s: " + Files.readString(log));
    }
}
