package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.jna.Library;
import com.sun.jna.Native;
import io.fabricd.agent.config.AgentConfig;
import io.fabricd.agent.config.ListenAddress;
import io.fabricd.collectors.Fixtures;
import io.fabricd.testing.PrivateFiles;
import io.fabricd.testing.PromText;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * A slow host fails the gate: four agents on loopback probing each other, one of them a process of
 * its own that is stopped (SIGSTOP) now and then: four fifths of the time, as a host whose CPU is
 * starved (most answers held: its median hold is slow), or a quarter of the time, as a host that
 * stalls now and then (a quarter of its answers held: its median stays fast, its 90th percentile
 * does not). The kernel takes its probes in and stamps them, and its responder answers each when it
 * runs again. Its round trips stay those of loopback (the hold is taken out); {@code fabricd
 * preflight} must exclude it for its host, in words of its own that name the statistic, pass the
 * other three and every link, and its own metrics must show the hold.
 */
class PreflightSlowHostTest {
    private static final int SIGCONT = 18;
    private static final int SIGSTOP = 19;

    /** kill(2): the test stops and continues the slow agent's process as a stalling host's scheduler would. */
    interface Signals extends Library {
        int kill(int pid, int signal);
    }

    @ParameterizedTest(name = "stopped {0} ms, then running {1} ms: its {2} hold is slow")
    @CsvSource({"100, 25, p50, median", "80, 240, p90, 90th percentile"})
    void aStalledHostIsExcludedForItselfAndItsPartnersPass(int stopMs, int runMs, String statistic, String named, @TempDir Path tmp)
            throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), PreflightEndToEndTest.KEY + "\n");
        Map<String, String> address = new LinkedHashMap<>();
        for (String n : List.of("gpu01", "gpu02", "gpu03", "gpu04")) {
            address.put(n, "127.0.0.1:" + PreflightEndToEndTest.freeTcp("127.0.0.1"));
        }
        List<Agent> agents = new ArrayList<>();
        Process slow = null;
        Thread stalls = null;
        Signals libc = Native.load("c", Signals.class);
        try {
            for (Map.Entry<String, String> e : address.entrySet()) {
                List<String> peers = address.values().stream().filter(a -> !a.equals(e.getValue())).toList();
                if (e.getKey().equals("gpu04")) {
                    slow = agentProcess(tmp, key, peers, e.getValue());
                    continue;
                }
                AgentConfig c = PreflightEndToEndTest.config(key, peers, e.getKey(), null, 0);
                String[] hp = e.getValue().split(":");
                agents.add(new Agent(Fixtures.open("host-a-ib"), c, new ListenAddress(hp[0], Integer.parseInt(hp[1]))).start());
            }
            for (Agent a : agents) {
                assertThat(a.awaitReady(Duration.ofSeconds(60))).isTrue();
            }
            int slowPort = Integer.parseInt(address.get("gpu04").split(":")[1]);
            awaitReady(slow, slowPort);
            for (Agent a : agents) {
                awaitAnswers(a.port(), address.get("gpu04"));
            }

            long pid = slow.pid();
            stalls = new Thread(() -> {
                try {
                    while (!Thread.currentThread().isInterrupted()) {
                        libc.kill((int) pid, SIGSTOP);
                        Thread.sleep(stopMs);
                        libc.kill((int) pid, SIGCONT);
                        Thread.sleep(runMs);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    libc.kill((int) pid, SIGCONT);
                }
            }, "stalls");
            stalls.start();
            // the pingmesh's windows fill with the stalled host's holds too (20 probes a peer every half second)
            Thread.sleep(6_000);

            StringBuilder nodes = new StringBuilder();
            address.forEach((n, a) -> nodes.append(nodes.length() == 0 ? "" : ",").append(n).append('=').append(a));
            CliTest.Result r = CliTest.run("preflight", "--nodes", nodes.toString(), "--key-file", key.toString(), "--timeout", "30s",
                    "--bandwidth", "none", "--latency-factor", "50", "--format", "json");
            assertThat(r.code()).as(r.err() + r.out()).isEqualTo(1);
            JsonNode j = new ObjectMapper().readTree(r.out());
            assertThat(j.get("excluded").asText()).as(r.out()).isEqualTo("gpu04");
            Map<String, JsonNode> byNode = new LinkedHashMap<>();
            j.get("nodes").forEach(n -> byNode.put(n.get("node").asText(), n));
            JsonNode gpu04 = byNode.get("gpu04");
            assertThat(gpu04.get("verdict").asText()).isEqualTo("exclude");
            assertThat(gpu04.get("reasons")).hasSize(1);
            assertThat(gpu04.get("reasons").get(0).asText()).startsWith("gpu04: slow host: it held ")
                    .contains("(" + named + " of ").contains("udp probes; set " + named + " ")
                    .contains("a starved CPU or stalls slow every collective it joins");
            assertThat(gpu04.at("/evidence/bad_partners").isMissingNode()).isTrue();
            JsonNode hold = gpu04.at("/evidence/host/0");
            assertThat(hold.get("transport").asText()).isEqualTo("udp");
            assertThat(hold.get("slow").asBoolean()).isTrue();
            assertThat(hold.at("/" + statistic + "/hold_seconds").asDouble()).as(hold.toString()).isGreaterThan(5e-3);
            assertThat(hold.at("/" + statistic + "/above").asBoolean()).as(hold.toString()).isTrue();
            if (statistic.equals("p90")) {
                // stalling a quarter of the time: most answers are prompt, and only the tail gives it away
                assertThat(hold.at("/p50/above").asBoolean(true)).as(hold.toString()).isFalse();
            }
            for (String pass : List.of("gpu01", "gpu02", "gpu03")) {
                JsonNode n = byNode.get(pass);
                assertThat(n.get("verdict").asText()).as(pass + ": " + n).isEqualTo("pass");
                assertThat(n.at("/evidence/host/0/slow").asBoolean(true)).as(pass + ": " + n).isFalse();
            }
            // its round trips are loopback's: the stalls are its host's share, not the links'
            for (JsonNode l : j.get("links")) {
                assertThat(l.get("verdict").asText()).as(l.toString()).isEqualTo("pass");
            }
            // and its own responder says how long it held what it answered
            stalls.interrupt();
            stalls.join();
            Map<String, Double> m = PromText.parse(Http.get(slowPort, "/metrics?name[]=fabric_probe_responder_hold_seconds").body());
            double count = m.getOrDefault("fabric_probe_responder_hold_seconds_count", 0.0);
            // the answers held at most about a millisecond: the bucket whose bound is 1.024 ms
            double fast = m.entrySet().stream().filter(e -> e.getKey().startsWith("fabric_probe_responder_hold_seconds_bucket{le=\""))
                    .filter(e -> Math.abs(Double.parseDouble(e.getKey().replaceAll(".*le=\"([^\"]+)\".*", "$1")) - 1.024e-3) < 1e-9)
                    .mapToDouble(Map.Entry::getValue).findFirst().orElseThrow();
            assertThat(count).as(m.toString()).isPositive();
            assertThat(count - fast).as("answers held over a millisecond: " + m).isGreaterThan(count * stopMs / (stopMs + runMs) / 3);
        } finally {
            if (stalls != null) {
                stalls.interrupt();
                stalls.join();
            }
            for (Agent a : agents) {
                a.close();
            }
            if (slow != null) {
                slow.destroyForcibly().waitFor(20, TimeUnit.SECONDS);
            }
        }
    }

    /** {@code fabricd run} in a JVM of its own (as the agent's jar starts it: its responder reads the kernel's arrival stamps). */
    private static Process agentProcess(Path tmp, Path key, List<String> peers, String listen) throws Exception {
        Path config = tmp.resolve("gpu04.yaml");
        Files.writeString(config, "collection: {interval: 1h}\nprobe:\n  key_file: '" + key + "'\n  udp_port: 0\n  node_name: gpu04\n"
                + "  peers: [" + String.join(", ", peers.stream().map(p -> "'" + p + "'").toList()) + "]\n"
                + "  interval: 500ms\n  jitter: 0\n  count: 20\n  pacing: 2ms\n  rack: r1\n");
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
                "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), "io.fabricd.agent.Main",
                "run", "--root", Fixtures.host("host-a-ib").toString(), "--config", config.toString(), "--listen", listen);
        pb.redirectErrorStream(true).redirectOutput(tmp.resolve("gpu04.log").toFile());
        return pb.start();
    }

    private static void awaitReady(Process p, int port) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline && p.isAlive()) {
            try {
                if (Http.get(port, "/readyz").statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        assertThat(p.isAlive()).as("the slow agent runs").isTrue();
        assertThat(Http.get(port, "/readyz").statusCode()).as("the slow agent is ready").isEqualTo(200);
    }

    /** Until the agent at {@code port} has had 40 probes to {@code peer} answered. */
    private static void awaitAnswers(int port, String peer) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        double answered = 0;
        while (System.nanoTime() < deadline) {
            Map<String, Double> v = PromText.parse(Http.get(port, "/metrics?name[]=fabric_probe_sent_total&name[]=fabric_probe_lost_total")
                    .body());
            double sent = sum(v, "fabric_probe_sent_total", peer);
            answered = sent - sum(v, "fabric_probe_lost_total", peer);
            if (answered >= 40) {
                return;
            }
            Thread.sleep(200);
        }
        assertThat(answered).as("probes from " + port + " to " + peer + " answered").isGreaterThanOrEqualTo(40);
    }

    private static double sum(Map<String, Double> v, String family, String peer) {
        return v.entrySet().stream().filter(e -> e.getKey().startsWith(family) && e.getKey().contains("peer=\"" + peer + "\""))
                .mapToDouble(Map.Entry::getValue).sum();
    }
}
