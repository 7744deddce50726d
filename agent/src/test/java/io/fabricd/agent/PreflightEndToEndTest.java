package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.agent.config.AgentConfig;
import io.fabricd.agent.config.ConfigLoader;
import io.fabricd.agent.config.ListenAddress;
import io.fabricd.agent.fleet.LossyUdpRelay;
import io.fabricd.collectors.Fixtures;
import io.fabricd.testing.PrivateFiles;
import io.fabricd.testing.PromText;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fabricd preflight} end to end: five real agents on loopback, each collecting a snapshot of
 * its own (one with critical findings), probing each other, one of them reached through a UDP relay
 * that loses 30 % of its answers. The gate must exclude the critical node with its finding, localise
 * the loss to the node behind the relay, pass the other three, and say so in JSON, in the exclude
 * file, and through the Slurm prolog (deploy/slurm/fabricd-prolog.sh with a recording scontrol).
 */
class PreflightEndToEndTest {
    static final String KEY = AgentProbeTest.KEY;
    /** node name -> fixture; gpu03 has critical findings (pfc_missing), gpu04 sits behind the lossy relay. */
    static final Map<String, String> FIXTURES = new LinkedHashMap<>();

    static {
        FIXTURES.put("gpu01", "host-a-ib");
        FIXTURES.put("gpu02", "host-c-rxe");
        FIXTURES.put("gpu03", "host-e-roce-variants");
        FIXTURES.put("gpu04", "host-g-drivers");
        FIXTURES.put("gpu05", "host-f-big");
    }

    @Test
    void criticalNodeExcludedLossyNodeLocalisedOthersPass(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), KEY + "\n");
        // every agent's address before any starts: each probes all the others (gpu04 at 127.0.0.2, through the relay)
        Map<String, String> address = new LinkedHashMap<>();
        for (String n : FIXTURES.keySet()) {
            address.put(n, (n.equals("gpu04") ? "127.0.0.2:" + freeTcp("127.0.0.2") : "127.0.0.1:" + freeTcp("127.0.0.1")));
        }
        int lossyUdp = freeUdp();
        List<Agent> agents = new ArrayList<>();
        try (LossyUdpRelay relay = new LossyUdpRelay(new InetSocketAddress("127.0.0.2", lossyUdp),
                new InetSocketAddress("127.0.0.1", lossyUdp), 0.3)) {
            for (Map.Entry<String, String> e : address.entrySet()) {
                // gpu04 answers probes and sends none of its own: its links are measured through the relay, but
                // for its on-demand round to its ring neighbours
                List<String> peers = e.getKey().equals("gpu04") ? List.of()
                        : address.values().stream().filter(a -> !a.equals(e.getValue())).toList();
                // gpu04: HTTP on 127.0.0.2, its responder on 127.0.0.1 at the port of the relay on 127.0.0.2
                boolean lossy = e.getKey().equals("gpu04");
                AgentConfig c = config(key, peers, e.getKey(), lossy ? "127.0.0.1" : null, lossy ? lossyUdp : 0);
                String[] hp = e.getValue().split(":");
                agents.add(new Agent(Fixtures.open(FIXTURES.get(e.getKey())), c, new ListenAddress(hp[0], Integer.parseInt(hp[1])))
                        .start());
            }
            for (Agent a : agents) {
                assertThat(a.awaitReady(Duration.ofSeconds(60))).isTrue();
            }
            for (int i = 0; i < agents.size(); i++) {
                if (i != 3) {
                    awaitProbes(agents.get(i), address.get("gpu04"));
                }
            }

            StringBuilder nodes = new StringBuilder();
            address.forEach((n, a) -> nodes.append(nodes.length() == 0 ? "" : ",").append(n).append('=').append(a));
            Path excluded = tmp.resolve("out/excluded");
            Path list = tmp.resolve("out/excluded.tsv");
            Files.createDirectories(excluded.getParent(), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            long t0 = System.nanoTime();
            CliTest.Result r = CliTest.run("preflight", "--nodes", nodes.toString(), "--key-file", key.toString(), "--timeout", "40s",
                    "--latency-factor", "50", "--format", "json", "--exclude-file", excluded.toString(), "--exclude-list", list.toString());
            long took = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0);
            assertThat(took).as("bounded by --timeout").isLessThan(40 + 20);
            assertThat(r.code()).as(r.err() + r.out()).isEqualTo(1);
            JsonNode j = new ObjectMapper().readTree(r.out());
            assertThat(j.get("verdict").asText()).isEqualTo("exclude");
            assertThat(j.get("excluded").asText()).isEqualTo("gpu[03-04]");
            assertThat(j.get("kept").asInt()).isEqualTo(3);
            Map<String, JsonNode> byNode = new LinkedHashMap<>();
            for (JsonNode n : j.get("nodes")) {
                byNode.put(n.get("node").asText(), n);
            }
            assertThat(byNode.keySet()).containsExactly("gpu01", "gpu02", "gpu03", "gpu04", "gpu05");
            for (String pass : List.of("gpu01", "gpu02", "gpu05")) {
                assertThat(byNode.get(pass).get("verdict").asText()).as(pass + ": " + byNode.get(pass)).isEqualTo("pass");
            }
            assertThat(byNode.get("gpu03").get("verdict").asText()).isEqualTo("exclude");
            assertThat(byNode.get("gpu03").get("reasons").toString()).contains("pfc_missing").contains("critical");
            assertThat(byNode.get("gpu04").get("verdict").asText()).as(byNode.get("gpu04").toString()).isEqualTo("exclude");
            assertThat(byNode.get("gpu04").get("reasons").toString()).as(r.out()).contains("gpu04: bad links with");
            List<String> partners = new ArrayList<>();
            byNode.get("gpu04").at("/evidence/bad_partners").forEach(x -> partners.add(x.asText()));
            assertThat(partners).containsExactly("gpu01", "gpu02", "gpu05");
            assertThat(j.get("links").toString()).contains("probe loss").contains("explained by gpu04");
            // the lossy links are held against gpu04, not against its partners
            for (JsonNode l : j.get("links")) {
                boolean touches = l.get("a").asText().equals("gpu04") || l.get("b").asText().equals("gpu04");
                if (!touches && !l.get("a").asText().equals("gpu03") && !l.get("b").asText().equals("gpu03")) {
                    assertThat(l.get("evidence").path("loss_ratio").asDouble(0)).as(l.toString()).isLessThan(0.05);
                }
            }
            assertThat(relay.dropped.get()).isPositive();
            assertThat(Files.readString(excluded)).isEqualTo("gpu[03-04]\n");
            assertThat(Files.readAllLines(list)).hasSize(2)
                    .anySatisfy(l -> assertThat(l).startsWith("gpu03\texclude\tgpu03: ").contains("pfc_missing"))
                    .anySatisfy(l -> assertThat(l).startsWith("gpu04\texclude\tgpu04: "));
            assertThat(r.err()).contains("fabricd preflight: state: 5 of 5 agents answered");

            slurmProlog(tmp, nodes.toString(), key);
        } finally {
            for (Agent a : agents) {
                a.close();
            }
        }
    }

    /**
     * The PrologSlurmctld script with the real command line (this JVM's classpath) against the agents,
     * scontrol a script that records its arguments: each excluded node drained with its reason, the
     * job requeued, the verdict logged.
     */
    private static void slurmProlog(Path tmp, String nodes, Path key) throws Exception {
        Path bin = Files.createDirectories(tmp.resolve("bin"));
        Path calls = tmp.resolve("scontrol.calls");
        Path scontrol = bin.resolve("scontrol");
        Files.writeString(scontrol, "#!/bin/bash\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done >>'" + calls + "'\necho --- >>'" + calls
                + "'\n");
        Path fabricd = bin.resolve("fabricd");
        Files.writeString(fabricd, "#!/bin/bash\nexec '" + Path.of(System.getProperty("java.home"), "bin", "java") + "' -cp '"
                + System.getProperty("java.class.path") + "' io.fabricd.agent.Main \"$@\"\n");
        for (Path p : List.of(scontrol, fabricd)) {
            p.toFile().setExecutable(true);
        }
        Path logDir = tmp.resolve("log");
        ProcessBuilder pb = new ProcessBuilder("bash", Path.of(repo(), "deploy/slurm/fabricd-prolog.sh").toString());
        pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
        pb.environment().put("SLURM_JOB_ID", "4242");
        pb.environment().put("SLURM_JOB_NODELIST", nodes);
        pb.environment().put("SLURM_JOB_NUM_NODES", "5");
        pb.environment().put("FABRICD_PREFLIGHT_ENV", tmp.resolve("none.env").toString());
        pb.environment().put("FABRICD_PREFLIGHT_KEY_FILE", key.toString());
        pb.environment().put("FABRICD_PREFLIGHT_TIMEOUT", "40s");
        pb.environment().put("FABRICD_PREFLIGHT_ARGS", "--latency-factor 50");
        pb.environment().put("FABRICD_PREFLIGHT_LOG_DIR", logDir.toString());
        pb.redirectErrorStream(true);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        List<String> recorded = Files.readAllLines(calls);
        String all = String.join("\n", recorded);
        assertThat(all).contains("update\nNodeName=gpu03\nState=DRAIN\nReason=fabricd preflight: gpu03: critical")
                .contains("update\nNodeName=gpu04\nState=DRAIN\nReason=fabricd preflight: gpu04")
                .endsWith("requeue\n4242\n---");
        assertThat(new ObjectMapper().readTree(logDir.resolve("job-4242.json").toFile()).get("excluded").asText()).isEqualTo("gpu[03-04]");
        assertThat(Files.readString(logDir.resolve("preflight.log"))).contains("job=4242 drain: gpu03,gpu04").contains("(attempt 1 of 3): requeued");
    }

    /** Until the agent has sent 80 probes to {@code peer}. */
    private static void awaitProbes(Agent a, String peer) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        double sent = 0;
        while (System.nanoTime() < deadline) {
            Map<String, Double> v = PromText.parse(Http.get(a.port(), "/metrics?name[]=fabric_probe_sent_total").body());
            sent = v.entrySet().stream().filter(e -> e.getKey().contains("peer=\"" + peer + "\"")).mapToDouble(Map.Entry::getValue)
                    .sum();
            if (sent >= 80) {
                return;
            }
            Thread.sleep(200);
        }
        assertThat(sent).as("probes from " + a.port() + " to " + peer).isGreaterThanOrEqualTo(80);
    }

    /** One collection (the snapshot does not change), quick probe rounds to {@code peers}, all in one rack (a full mesh). */
    static AgentConfig config(Path key, List<String> peers, String node, String udpHost, int udpPort) throws IOException {
        StringBuilder yaml = new StringBuilder("probe:\n  key_file: '" + key + "'\n  udp_port: " + udpPort + "\n  node_name: " + node
                + "\n  peers: [" + String.join(", ", peers.stream().map(p -> "'" + p + "'").toList()) + "]\n"
                + "  interval: 500ms\n  jitter: 0\n  count: 20\n  pacing: 2ms\n  rack: r1\n");
        if (udpHost != null) {
            yaml.append("  udp_host: ").append(udpHost).append('\n');
        }
        Path f = Files.createTempFile("fabricd-preflight", ".yaml");
        try {
            Files.writeString(f, yaml);
            return TestConfigs.withProbe(AgentHttpTest.config(Duration.ofHours(1)), ConfigLoader.load(f).probe());
        } finally {
            Files.deleteIfExists(f);
        }
    }

    static int freeTcp(String host) throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(host))) {
            return s.getLocalPort();
        }
    }

    static int freeUdp() throws IOException {
        try (DatagramSocket a = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
            int p = a.getLocalPort();
            try (DatagramSocket b = new DatagramSocket(new InetSocketAddress("127.0.0.2", p))) {
                return p;
            }
        }
    }

    /** The repository root (where bin/fabricd is). */
    static String repo() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isRegularFile(p.resolve("bin/fabricd"))) {
            p = p.getParent();
        }
        return String.valueOf(p);
    }
}
