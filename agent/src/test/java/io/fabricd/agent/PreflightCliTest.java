package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.agent.config.ListenAddress;
import io.fabricd.collectors.Fixtures;
import io.fabricd.testing.PrivateFiles;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fabricd preflight} given bad input: each is one line and exit 2 before anything is asked,
 * or, for a node whose agent cannot be used (a name that does not resolve, a closed port, a wrong
 * key, a server answering garbage, one answering nothing), an "unknown" verdict with the reason —
 * and the command returns within its --timeout (plus a margin for a loaded machine: a bound, not a
 * speed claim).
 */
class PreflightCliTest {
    @Test
    void badInputIsOneLineAndExitTwo(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY);
        Path empty = Files.writeString(tmp.resolve("nodes"), "# no node here\n\n");
        Map<String, List<String>> cases = new LinkedHashMap<>();
        cases.put("--nodes is empty", List.of("--nodes", " "));
        cases.put("gpu[1-", List.of("--nodes", "gpu[1-"));
        cases.put("gpu[5-1]", List.of("--nodes", "gpu[5-1]"));
        cases.put("no such file", List.of("--nodes", "@" + tmp.resolve("missing")));
        // @FILE is the node file's, never picocli's argument file: its lines are nodes, not options
        Path two = Files.writeString(tmp.resolve("two"), "gpu1=gpu1.example:9530\na=nowhere\n");
        cases.put(two + " line 2: 'a=nowhere' is not NAME=HOST:PORT", List.of("--nodes", "@" + two));
        cases.put("names no node", List.of("--nodes", empty.toString()));
        cases.put("is not NAME=HOST:PORT", List.of("--nodes", "a=nowhere"));
        cases.put("not a duration", List.of("--nodes", "gpu1", "--timeout", "soon"));
        cases.put("no check named 'pfc_mising'", List.of("--nodes", "gpu1", "--ignore-checks", "pfc_mising"));
        cases.put("--min-nodes 3 is more than the 2 nodes", List.of("--nodes", "gpu[1-2]", "--min-nodes", "3"));
        cases.put("critical or warning", List.of("--nodes", "gpu1", "--exclude-severity", "info"));
        cases.put("--on-suspect-switch drain: exclude or keep", List.of("--nodes", "gpu1", "--on-suspect-switch", "drain"));
        cases.put("not a number above 0", List.of("--nodes", "gpu1", "--loss-factor", "0"));
        cases.put("--p50-bound tcp=1ms: TRANSPORT=TIME, TRANSPORT udp or verbs", List.of("--nodes", "gpu1", "--p50-bound", "tcp=1ms"));
        cases.put("--p50-bound verbs:", List.of("--nodes", "gpu1", "--p50-bound", "verbs=soon"));
        Path cycle = Files.writeString(tmp.resolve("topology.conf"), "SwitchName=leaf-1 Nodes=gpu[1-2]\nSwitchName=leaf-2 Nodes=gpu2\n");
        cases.put(cycle + ":2:", List.of("--nodes", "gpu[1-2]", "--topology", cycle.toString()));
        cases.put(tmp.resolve("none.conf") + ": does not exist: check --topology", List.of("--nodes", "gpu1", "--topology",
                tmp.resolve("none.conf").toString()));
        Path noNode = Files.writeString(tmp.resolve("site.topology"), "# the racks, to come\n");
        cases.put(noNode + ": names no node", List.of("--nodes", "gpu1", "--topology", noNode.toString()));
        Path fifo = tmp.resolve("fifo.conf");
        assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
        cases.put(fifo + ": is not a regular file", List.of("--check", "--topology", fifo.toString()));
        // an agent answers a test when it is over and closes a connection idle for http.idle_timeout (30 s)
        cases.put("--bandwidth-duration 25s outside 100 ms .. 20 s", List.of("--nodes", "gpu1", "--bandwidth-duration", "25s"));
        cases.put("--host-floor 20us outside 100 us .. 10 s", List.of("--nodes", "gpu1", "--host-floor", "20us"));
        for (Map.Entry<String, List<String>> c : cases.entrySet()) {
            String[] args = concat(c.getValue(), "--key-file", key.toString());
            CliTest.Result r = CliTest.run(args);
            assertThat(r.code()).as(c.getKey() + ": " + r.err()).isEqualTo(2);
            assertThat(r.err()).as(c.getKey()).contains(c.getKey()).doesNotContain("\tat ").doesNotContain("Exception");
            assertThat(r.err().strip().lines()).as(c.getKey()).hasSize(1);
            assertThat(r.out()).as(c.getKey()).isEmpty();
        }
        CliTest.Result noKey = CliTest.run("preflight", "--nodes", "gpu1");
        if (System.getenv("FABRICD_PROBE_KEY") == null) {
            assertThat(noKey.code()).isEqualTo(2);
            assertThat(noKey.err()).startsWith("fabricd: no probe key").hasLineCount(1);
        }
        CliTest.Result noNodes = CliTest.run("preflight", "--key-file", key.toString());
        assertThat(noNodes.code()).isEqualTo(2);
        assertThat(noNodes.err()).contains("Missing required option: '--nodes=EXPR'");
    }

    /**
     * --check: the options and the key as the gate would take them (the key's whole rule, not only
     * whether it can be read), said in one line, asking no agent; --nodes may be left out. The Slurm
     * prolog's --check asks this of the fabricd it runs.
     */
    @Test
    void checkSaysWhetherTheGateCouldRunAndAsksNoAgent(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY);
        CliTest.Result ok = CliTest.run("preflight", "--check", "--key-file", key.toString(), "--bandwidth", "none", "--unknown", "pass",
                "--on-suspect-switch", "keep");
        assertThat(ok.code()).as(ok.err()).isZero();
        assertThat(ok.out()).isEqualTo("fabricd preflight: the options and the probe key (" + key + ") are usable; no agent was asked\n");
        assertThat(ok.err()).isEmpty();
        // a node nothing listens for is not asked: no phase line, no verdict
        CliTest.Result set = CliTest.run("preflight", "--check", "--nodes", "localhost,ip6-localhost", "--port", "1", "--key-file", key.toString());
        assertThat(set.code()).as(set.err()).isZero();
        assertThat(set.out()).contains("are usable, for 2 nodes; no agent was asked");
        Path tree = Files.writeString(tmp.resolve("topology.conf"), "SwitchName=leaf-1 Nodes=gpu[1-4]\nSwitchName=leaf-2 Nodes=gpu[5-8]\n"
                + "SwitchName=spine-1 Switches=leaf-[1-2]\n");
        CliTest.Result placed = CliTest.run("preflight", "--check", "--key-file", key.toString(), "--topology", tree.toString());
        assertThat(placed.code()).as(placed.err()).isZero();
        assertThat(placed.out()).contains("; " + tree + " places 8 nodes under 3 switches; no agent was asked");
        // with a set: how many of its nodes the file places, and which it does not (names spelt otherwise)
        CliTest.Result some = CliTest.run("preflight", "--check", "--key-file", key.toString(), "--topology", tree.toString(), "--nodes",
                "gpu[3-6],gpu[01-02]");
        assertThat(some.code()).as(some.err()).isZero();
        assertThat(some.out()).contains("; " + tree + " places 4 of the set's 6 nodes (8 nodes under 3 switches in all); not placed: gpu01,"
                + " gpu02: check the names; no agent was asked");
        assertThat(set.err()).isEmpty();
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r--r--"));
        Map<String, List<String>> bad = new LinkedHashMap<>();
        bad.put("has mode 0644: every user can read it", List.of("--key-file", key.toString()));
        bad.put("does not exist", List.of("--key-file", tmp.resolve("nope").toString()));
        bad.put("not a duration", List.of("--key-file", key.toString(), "--timeout", "soon"));
        bad.put("--min-nodes 3 is more than the 2 nodes", List.of("--nodes", "gpu[1-2]", "--min-nodes", "3", "--key-file", key.toString()));
        bad.put("is not a ConfigMap name", List.of("--result-configmap", "../x", "--key-file", key.toString()));
        for (Map.Entry<String, List<String>> c : bad.entrySet()) {
            CliTest.Result r = CliTest.run(concat(c.getValue(), "--check"));
            assertThat(r.code()).as(c.getKey() + ": " + r.err()).isEqualTo(2);
            assertThat(r.err().strip().lines()).as(c.getKey()).singleElement().asString().contains(c.getKey());
            assertThat(r.out()).as(c.getKey()).isEmpty();
        }
        CliTest.Result typo = CliTest.run("preflight", "--check", "--key-file", key.toString(), "--bandwith", "none");
        assertThat(typo.code()).isEqualTo(2);
        assertThat(typo.err()).contains("Unknown options: '--bandwith'", "Possible solutions: --bandwidth");
    }

    @Test
    void agentsThatCannotBeUsedAreUnknownWithTheirReasonWithinTheTimeout(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY);
        Path otherKey = PrivateFiles.write(tmp.resolve("other"), "another-key-of-more-than-16-bytes");
        try (Agent agent = new Agent(Fixtures.open("host-a-ib"), AgentProbeTest.config(otherKey, List.of()),
                new ListenAddress("127.0.0.1", 0)).start();
             RawServer garbage = new RawServer("HELLO this is not HTTP\r\n\r\n");
             RawServer silent = new RawServer(null)) {
            assertThat(agent.awaitReady(Duration.ofSeconds(20))).isTrue();
            int closed = PreflightEndToEndTest.freeTcp("127.0.0.1");
            String nodes = "wrongkey=127.0.0.1:" + agent.port() + ",garbage=127.0.0.1:" + garbage.port() + ",silent=127.0.0.1:"
                    + silent.port() + ",closed=127.0.0.1:" + closed + ",nowhere-fabricd-test.invalid";
            long t0 = System.nanoTime();
            CliTest.Result r = CliTest.run("preflight", "--nodes", nodes, "--key-file", key.toString(), "--timeout", "15s", "--format",
                    "json", "--exclude-file", tmp.resolve("excluded").toString());
            long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertThat(took).as("returns within --timeout 15s and a margin").isLessThan(15_000 + 10_000);
            // no node kept: the gate cannot run the job on this set
            assertThat(r.code()).as(r.err()).isEqualTo(2);
            assertThat(r.err().strip().lines().reduce((a, b) -> b).orElse("")).contains("only 0 of 5 nodes kept, fewer than --min-nodes 1");
            JsonNode j = new ObjectMapper().readTree(r.out());
            Map<String, JsonNode> byNode = new LinkedHashMap<>();
            for (JsonNode n : j.get("nodes")) {
                byNode.put(n.get("node").asText(), n);
                assertThat(n.get("verdict").asText()).as(n.toString()).isEqualTo("unknown");
                assertThat(n.get("reasons")).as(n.toString()).isNotEmpty();
                for (JsonNode reason : n.get("reasons")) {
                    assertThat(reason.asText()).doesNotContain("\n").doesNotContain("Exception");
                }
            }
            assertThat(byNode.get("wrongkey").get("reasons").toString()).contains("refused the probe key");
            assertThat(byNode.get("wrongkey").at("/evidence/state").asText()).isEqualTo("refused");
            assertThat(byNode.get("garbage").at("/evidence/state").asText()).isEqualTo("garbage");
            assertThat(byNode.get("silent").get("reasons").toString()).contains("within");
            assertThat(byNode.get("closed").get("reasons").toString()).contains("connection refused");
            assertThat(byNode.get("nowhere-fabricd-test.invalid").get("reasons").toString()).contains("cannot resolve host");
            assertThat(j.get("excluded").asText()).isEqualTo("closed,garbage,nowhere-fabricd-test.invalid,silent,wrongkey");
            assertThat(Files.readString(tmp.resolve("excluded"))).isEqualTo(j.get("excluded").asText() + "\n");

            // --unknown pass keeps them: the table says what is unknown and why
            CliTest.Result text = CliTest.run("preflight", "--nodes", nodes, "--key-file", key.toString(), "--timeout", "5s",
                    "--unknown", "pass", "--bandwidth", "none");
            assertThat(text.code()).as(text.err()).isZero();
            assertThat(text.out()).contains("node", "verdict", "reason").containsPattern("(?m)^silent +unknown +silent");
        }
    }

    private static String[] concat(List<String> args, String... more) {
        String[] out = new String[args.size() + more.length + 1];
        out[0] = "preflight";
        for (int i = 0; i < args.size(); i++) {
            out[i + 1] = args.get(i);
        }
        System.arraycopy(more, 0, out, args.size() + 1, more.length);
        return out;
    }

    /** A TCP server on loopback that answers every connection with {@code answer} and closes it, or (null) never answers. */
    static final class RawServer implements AutoCloseable {
        private final ServerSocket server;
        private final List<Socket> held = new CopyOnWriteArrayList<>();

        RawServer(String answer) throws IOException {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread t = new Thread(() -> serve(answer), "raw-server");
            t.setDaemon(true);
            t.start();
        }

        int port() {
            return server.getLocalPort();
        }

        private void serve(String answer) {
            while (!server.isClosed()) {
                try {
                    Socket s = server.accept();
                    held.add(s);
                    if (answer != null) {
                        InputStream in = s.getInputStream();
                        in.read(new byte[4096]);
                        OutputStream out = s.getOutputStream();
                        out.write(answer.getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                        s.close();
                    }
                } catch (IOException e) {
                    // closed, or a client gone: next
                }
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
            for (Socket s : held) {
                s.close();
            }
        }
    }
}
