package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.agent.config.ListenAddress;
import io.fabricd.collectors.Fixtures;
import io.fabricd.testing.PrivateFiles;
import io.fabricd.testing.PromText;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fabricd preflight} with a node that has no agent, only a process without the key listening
 * at its agent address and relaying to a healthy agent of the fabric (docs/security.md, "Preflight
 * requests"): the relay's node is unknown, said as another node's agent answering, and the real
 * nodes pass on their own evidence; a pingmesh window measured through the relay is no node's.
 */
class PreflightRelayTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Two real agents (gpu01, gpu02), each probing {@code peers.get(name)}; started and ready. */
    private static List<Agent> agents(Path key, Map<String, String> address, Map<String, List<String>> peers) throws Exception {
        List<Agent> agents = new ArrayList<>();
        for (Map.Entry<String, String> e : address.entrySet()) {
            String[] hp = e.getValue().split(":");
            agents.add(new Agent(Fixtures.open(e.getKey().equals("gpu01") ? "host-a-ib" : "host-c-rxe"),
                    PreflightEndToEndTest.config(key, peers.get(e.getKey()), e.getKey(), null, 0),
                    new ListenAddress(hp[0], Integer.parseInt(hp[1]))).start());
        }
        for (Agent a : agents) {
            assertThat(a.awaitReady(Duration.ofSeconds(60))).isTrue();
        }
        return agents;
    }

    private static Map<String, JsonNode> byNode(JsonNode j) {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        j.get("nodes").forEach(n -> out.put(n.get("node").asText(), n));
        return out;
    }

    @Test
    void aRelayToAHealthyAgentAtANodesAddressMakesThatNodeUnknownNotPassed(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), PreflightEndToEndTest.KEY + "\n");
        Map<String, String> address = new LinkedHashMap<>();
        address.put("gpu01", "127.0.0.1:" + PreflightEndToEndTest.freeTcp("127.0.0.1"));
        address.put("gpu02", "127.0.0.1:" + PreflightEndToEndTest.freeTcp("127.0.0.1"));
        List<Agent> agents = agents(key, address, Map.of("gpu01", List.of(address.get("gpu02")), "gpu02", List.of(address.get("gpu01"))));
        // gpu03 has no agent: a plain TCP relay, without the key, listens at its address and forwards to gpu01's agent
        try (TeeProxy relay = new TeeProxy(agents.get(0).port())) {
            String at = "127.0.0.1:" + relay.port();
            String nodes = "gpu01=" + address.get("gpu01") + ",gpu02=" + address.get("gpu02") + ",gpu03=" + at;
            // agents on a shared, loaded machine hold probes for milliseconds by chance: the floor keeps them from being
            // judged slow hosts, which is not what this test is about (PreflightSlowHostTest is)
            CliTest.Result r = CliTest.run("preflight", "--nodes", nodes, "--key-file", key.toString(), "--timeout", "30s",
                    "--bandwidth", "none", "--latency-factor", "50", "--host-floor", "1s", "--format", "json");
            assertThat(r.code()).as(r.err() + r.out()).isEqualTo(1);
            JsonNode j = JSON.readTree(r.out());
            assertThat(j.get("excluded").asText()).as(r.out()).isEqualTo("gpu03");
            assertThat(j.get("kept").asInt()).isEqualTo(2);
            Map<String, JsonNode> byNode = byNode(j);
            JsonNode gpu03 = byNode.get("gpu03");
            assertThat(gpu03.get("verdict").asText()).as(gpu03.toString()).isEqualTo("unknown");
            assertThat(gpu03.at("/evidence/state").asText()).isEqualTo("other_agent");
            assertThat(gpu03.get("reasons").get(0).asText()).startsWith("gpu03: not its agent's answer (the agent answering at " + at
                    + " is node gpu01's, not gpu03's: a relay, or a node list that points at the wrong address)");
            for (String pass : List.of("gpu01", "gpu02")) {
                assertThat(byNode.get(pass).get("verdict").asText()).as(pass + ": " + byNode.get(pass)).isEqualTo("pass");
            }
            // no link of gpu03 was measured: its "agent" was not asked for a round, nor probed as its
            for (JsonNode l : j.get("links")) {
                assertThat(List.of(l.get("a").asText(), l.get("b").asText())).as(l.toString()).doesNotContain("gpu03");
            }
            assertThat(r.err()).contains("state: 2 of 3 agents answered, 1 unknown (gpu03: the agent answering at " + at
                    + " is node gpu01's, not gpu03's");
        } finally {
            for (Agent a : agents) {
                a.close();
            }
        }
    }

    @Test
    void aPingmeshWindowMeasuredThroughARelayCountsForNoNode(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), PreflightEndToEndTest.KEY + "\n");
        Map<String, String> address = new LinkedHashMap<>();
        address.put("gpu01", "127.0.0.1:" + PreflightEndToEndTest.freeTcp("127.0.0.1"));
        address.put("gpu02", "127.0.0.1:" + PreflightEndToEndTest.freeTcp("127.0.0.1"));
        // the relay at gpu03's address, 127.0.0.2, where nothing answers UDP: gpu02's pingmesh is given that address
        // too, fetches gpu01's endpoint through it and probes 127.0.0.2, losing every probe, under gpu01's name
        int relayPort = PreflightEndToEndTest.freeTcp("127.0.0.2");
        String at = "127.0.0.2:" + relayPort;
        int gpu01 = Integer.parseInt(address.get("gpu01").split(":")[1]);
        List<Agent> agents = new ArrayList<>();
        try (TeeProxy relay = new TeeProxy(InetAddress.getByName("127.0.0.2"), relayPort, gpu01)) {
            agents.addAll(agents(key, address, Map.of("gpu01", List.of(address.get("gpu02")),
                    "gpu02", List.of(address.get("gpu01"), at))));
            awaitSent(agents.get(1), at);
            String nodes = "gpu01=" + address.get("gpu01") + ",gpu02=" + address.get("gpu02") + ",gpu03=" + at;
            CliTest.Result r = CliTest.run("preflight", "--nodes", nodes, "--key-file", key.toString(), "--timeout", "30s",
                    "--bandwidth", "none", "--latency-factor", "50", "--host-floor", "1s", "--format", "json");
            JsonNode j = JSON.readTree(r.out());
            Map<String, JsonNode> byNode = byNode(j);
            assertThat(byNode.get("gpu03").get("verdict").asText()).as(r.out()).isEqualTo("unknown");
            // the lost probes are not gpu01's: its link with gpu02 is judged on what reached gpu01's own address
            for (String pass : List.of("gpu01", "gpu02")) {
                assertThat(byNode.get(pass).get("verdict").asText()).as(pass + ": " + r.err() + r.out()).isEqualTo("pass");
            }
            assertThat(j.get("links")).hasSize(1);
            JsonNode link = j.get("links").get(0);
            assertThat(link.get("verdict").asText()).as(link.toString()).isEqualTo("pass");
            // the 40 and more probes lost at 127.0.0.2 are not in it (a few lost on a busy loopback may be)
            assertThat(link.at("/evidence/lost").asLong()).as(link.toString()).isLessThanOrEqualTo(5);
            assertThat(r.err()).contains("not counted (gpu02's to gpu01 at gpu03's address " + at + ")")
                    .contains("a relay at that address, or a node list that points at the wrong one");
        } finally {
            for (Agent a : agents) {
                a.close();
            }
        }
    }

    /** Until {@code a}'s pingmesh has sent 40 probes to {@code peer}. */
    private static void awaitSent(Agent a, String peer) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        double sent = 0;
        while (System.nanoTime() < deadline) {
            Map<String, Double> v = PromText.parse(Http.get(a.port(), "/metrics?name[]=fabric_probe_sent_total").body());
            sent = v.entrySet().stream().filter(e -> e.getKey().contains("peer=\"" + peer + "\"")).mapToDouble(Map.Entry::getValue)
                    .sum();
            if (sent >= 40) {
                return;
            }
            Thread.sleep(200);
        }
        assertThat(sent).as("probes from " + a.port() + " to " + peer).isGreaterThanOrEqualTo(40);
    }
}
