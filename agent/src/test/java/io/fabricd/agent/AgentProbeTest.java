package io.fabricd.agent;

import static io.fabricd.testing.PromText.s;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.NamespacedKubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabricd.agent.config.AgentConfig;
import io.fabricd.agent.config.ConfigLoader;
import io.fabricd.agent.config.ListenAddress;
import io.fabricd.collectors.Fixtures;
import io.fabricd.probes.ProbeConfig;
import io.fabricd.probes.ProbeKey;
import io.fabricd.probes.peers.EndpointAuth;
import io.fabricd.probes.peers.EndpointClient;
import io.fabricd.testing.PrivateFiles;
import io.fabricd.testing.PromText;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two real agents on loopback probing each other over UDP, and `fabricd probe` against them. */
class AgentProbeTest {
    static final String KEY = "a-test-key-of-more-than-16-bytes";

    /** Quick rounds to {@code peers}; {@code probeLines} are more keys of the probe section, as YAML. */
    static AgentConfig config(Path keyFile, List<String> peers, String... probeLines) {
        List<String> lines = new ArrayList<>(List.of("peers: [" + String.join(", ", peers.stream().map(p -> "'" + p + "'").toList()) + "]",
                "interval: 500ms", "jitter: 0", "count: 20", "pacing: 2ms"));
        lines.addAll(List.of(probeLines));
        return TestConfigs.withProbe(AgentHttpTest.config(Duration.ofHours(1)), probe(keyFile, lines.toArray(String[]::new)));
    }

    /**
     * The probe section as the configuration file gives it: the key file (null: none), any free UDP
     * port (the endpoint says which) and {@code lines}, more keys in YAML.
     */
    static ProbeConfig probe(Path keyFile, String... lines) {
        StringBuilder yaml = new StringBuilder("probe:\n  key_file: " + (keyFile == null ? "~" : "'" + keyFile + "'") + "\n  udp_port: 0\n");
        for (String l : lines) {
            yaml.append("  ").append(l).append('\n');
        }
        Path f = null;
        try {
            f = Files.createTempFile("fabricd-probe", ".yaml");
            Files.writeString(f, yaml);
            return ConfigLoader.load(f).probe();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            if (f != null) {
                f.toFile().delete();
            }
        }
    }

    @Test
    void twoAgentsProbeEachOtherFullyAnsweredAt64And1024Bytes(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), KEY + "\n");
        try (Agent a = new Agent(Fixtures.open("host-a-ib"), config(key, List.of()), new ListenAddress("127.0.0.1", 0)).start()) {
            assertThat(a.awaitReady(Duration.ofSeconds(20))).isTrue();
            String peerA = "127.0.0.1:" + a.port();
            try (Agent b = new Agent(Fixtures.open("host-b-roce"), config(key, List.of(peerA)), new ListenAddress("127.0.0.1", 0))
                    .start()) {
                assertThat(b.awaitReady(Duration.ofSeconds(20))).isTrue();
                Map<String, Double> v = Map.of();
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                String sent64 = s("fabric_probe_sent_total", "peer", peerA, "peer_rack", "r12", "transport", "udp", "size", "64");
                String sent1024 = s("fabric_probe_sent_total", "peer", peerA, "peer_rack", "r12", "transport", "udp", "size", "1024");
                // both sizes: a round sends 64 then 1024 bytes, so 40 of the one can come before the other's 40th
                while (System.nanoTime() < deadline) {
                    v = PromText.parse(Http.get(b.port(), "/metrics?name[]=fabric_probe_sent_total&name[]=fabric_probe_lost_total").body());
                    if (v.getOrDefault(sent64, 0.0) >= 40 && v.getOrDefault(sent1024, 0.0) >= 40) {
                        break;
                    }
                    Thread.sleep(100);
                }
                assertThat(v.get(sent64)).isGreaterThanOrEqualTo(40.0);
                assertThat(v.get(sent1024)).isGreaterThanOrEqualTo(40.0);
                for (String size : new String[] {"64", "1024"}) {
                    assertThat(v).containsEntry(s("fabric_probe_lost_total", "peer", peerA, "peer_rack", "r12", "transport", "udp",
                            "size", size), 0.0);
                }
                String all = Http.get(b.port(), "/metrics").body();
                // the histograms per peer rack, the per-peer latency as two recent quantiles (docs/probes.md, series per host)
                assertThat(all).contains("fabric_probe_rtt_seconds_bucket{peer_rack=\"r12\",size=\"64\",transport=\"udp\",le=\"2.0E-6\"}")
                        .contains("fabric_probe_rtt_recent_seconds{peer=\"" + peerA + "\",peer_rack=\"r12\",quantile=\"0.99\",size=\"64\"");
                assertThat(b.probes().planned()).containsExactly(peerA);
                // A answered; the endpoint refused an unauthenticated request and counted it
                HttpResponse<String> anon = Http.get(a.port(), EndpointClient.PATH);
                assertThat(anon.statusCode()).isEqualTo(401);
                Map<String, Double> av = Map.of();
                while (System.nanoTime() < deadline) { // a probe B counted as sent may still be on its way to A
                    av = PromText.parse(Http.get(a.port(), "/metrics?name[]=fabric_probe_responder_answered_total"
                            + "&name[]=fabric_agent_http_signed_refused_total").body());
                    if (av.getOrDefault("fabric_probe_responder_answered_total", 0.0) >= 80) {
                        break;
                    }
                    Thread.sleep(50);
                }
                assertThat(av.get("fabric_probe_responder_answered_total")).isGreaterThanOrEqualTo(80.0);
                // B keeps one source port from round to round: A answers it from a socket of its own
                assertThat(PromText.parse(Http.get(a.port(), "/metrics?name[]=fabric_probe_responder_peer_sockets").body()))
                        .containsEntry("fabric_probe_responder_peer_sockets", 1.0);
                assertThat(av).containsEntry(s("fabric_agent_http_signed_refused_total", "reason", "unauthenticated"), 1.0);
                // the endpoint, authenticated; its answer signed for this request; the same request again refused
                EndpointAuth auth = new EndpointAuth(new ProbeKey(KEY.getBytes()));
                // signed for A's id (a requester learns it from A's first 401: AgentSignedRequestsTest)
                EndpointAuth.Request signed = auth.request("GET", EndpointClient.PATH, a.probes().endpointAuth().agentId(), null,
                        System.currentTimeMillis() / 1000);
                HttpRequest epReq = HttpRequest.newBuilder(URI.create("http://" + peerA + EndpointClient.PATH))
                        .header(EndpointAuth.REQUEST_HEADER, signed.header()).build();
                HttpResponse<String> ep = Http.CLIENT.send(epReq, HttpResponse.BodyHandlers.ofString());
                assertThat(ep.statusCode()).isEqualTo(200);
                // signed by A, in its name
                assertThat(auth.answerer(signed.nonce(), a.probes().endpointAuth().agentId(), ep.body().getBytes(StandardCharsets.UTF_8),
                        ep.headers().firstValue(EndpointAuth.ANSWER_HEADER).orElse(null))).isEqualTo("dgx-h100-01");
                HttpResponse<String> replay = Http.CLIENT.send(epReq, HttpResponse.BodyHandlers.ofString());
                assertThat(replay.statusCode()).isEqualTo(401);
                assertThat(replay.body()).contains("(replayed)");
                JsonNode j = new ObjectMapper().readTree(ep.body());
                assertThat(j.get("host").asText()).isEqualTo("dgx-h100-01");
                assertThat(j.at("/labels/rack").asText()).isEqualTo("r12");
                assertThat(j.get("udp_port").asInt()).isPositive();

                // fabricd probe against both agents, JSON as interfaces.md
                CliTest.Result r = CliTest.run("probe", peerA, "127.0.0.1:" + b.port(), "--key-file", key.toString(), "--count", "50",
                        "--interval", "1ms", "--format", "json");
                assertThat(r.code()).as(r.err()).isZero();
                JsonNode res = new ObjectMapper().readTree(r.out()).get("results");
                assertThat(res).hasSize(4);
                for (JsonNode x : res) {
                    assertThat(x.get("transport").asText()).isEqualTo("udp");
                    assertThat(x.get("sent").asInt()).isEqualTo(50);
                    assertThat(x.get("received").asInt()).isEqualTo(50);
                    assertThat(x.get("lost").asInt()).isZero();
                    assertThat(x.at("/rtt_seconds/p50").asDouble()).isPositive();
                }
                assertThat(res.findValuesAsText("size")).containsExactly("64", "1024", "64", "1024");
            }
        }
    }

    @Test
    void probingNeedsTheKey(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), KEY);
        Path wrong = PrivateFiles.write(tmp.resolve("wrong"), "another-key-of-more-than-16-bytes");
        AgentConfig off = config(null, List.of());
        try (Agent a = new Agent(Fixtures.open("host-a-ib"), config(key, List.of()), new ListenAddress("127.0.0.1", 0)).start();
             Agent noKey = new Agent(Fixtures.open("host-c-rxe"), off, new ListenAddress("127.0.0.1", 0)).start()) {
            assertThat(noKey.probes()).isNull();
            assertThat(Http.get(noKey.port(), EndpointClient.PATH).statusCode()).isEqualTo(503);
            CliTest.Result refused = CliTest.run("probe", "127.0.0.1:" + a.port(), "--key-file", wrong.toString(), "--count", "5");
            assertThat(refused.code()).isEqualTo(2);
            assertThat(refused.err()).contains("refused the probe key (401)").doesNotContain("Exception");
            CliTest.Result nobody = CliTest.run("probe", "127.0.0.1:1", "--key-file", key.toString(), "--count", "5");
            assertThat(nobody.code()).isEqualTo(2);
            assertThat(nobody.err()).contains("cannot reach 127.0.0.1:1: connection refused").doesNotContain("Exception");
            assertThat(nobody.out()).as("no empty table").isEmpty();
            assertThat(CliTest.run("probe", "127.0.0.1:" + a.port(), "--count", "5").err()).contains("no probe key");
            assertThat(CliTest.run("probe", "127.0.0.1:" + a.port(), "--key-file", key.toString(), "--size", "20").code()).isEqualTo(2);
            CliTest.Result text = CliTest.run("probe", "127.0.0.1:" + a.port(), "--key-file", key.toString(), "--count", "20",
                    "--size", "64");
            assertThat(text.code()).isZero();
            assertThat(text.out()).contains("peer", "p50_us", "127.0.0.1:" + a.port());
        }
    }

    /**
     * Discovery through the Kubernetes API (fabric8's API server emulation in CRUD mode; no real API
     * server runs in CI): the Service's EndpointSlices list agent A, this node's labels give B's rack,
     * and a slice change reaches the plan.
     */
    @Test
    void peersFromTheServiceEndpointSlicesAndTheRackFromTheNode(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), KEY);
        KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                new KubernetesCrudDispatcher(), false);
        server.init();
        try (NamespacedKubernetesClient kube = server.createClient();
             Agent a = new Agent(Fixtures.open("host-a-ib"), config(key, List.of()), new ListenAddress("127.0.0.1", 0)).start()) {
            assertThat(a.awaitReady(Duration.ofSeconds(20))).isTrue();
            kube.resource(new NodeBuilder().withNewMetadata().withName("node-b").addToLabels("fabricd.io/rack", "r3").endMetadata()
                    .build()).create();
            kube.resource(new EndpointSliceBuilder().withNewMetadata().withName("fabricd-x").withNamespace("fabric")
                    .addToLabels("kubernetes.io/service-name", "fabricd").endMetadata().withAddressType("IPv4")
                    .addNewPort().withName("http").withPort(a.port()).endPort()
                    .addNewEndpoint().withAddresses("127.0.0.1").withNodeName("node-a").endEndpoint()
                    .addNewEndpoint().withAddresses("127.0.0.2").withNodeName("node-b").endEndpoint() // itself: skipped
                    .build()).create();
            AgentConfig cb = config(key, List.of(), "kubernetes: {service: fabricd, namespace: fabric, api_server: '"
                    + kube.getConfiguration().getMasterUrl() + "'}", "node_name: node-b");
            String peerA = "127.0.0.1:" + a.port();
            try (Agent b = new Agent(Fixtures.open("host-b-roce"), cb, new ListenAddress("127.0.0.1", 0)).start()) {
                assertThat(b.awaitReady(Duration.ofSeconds(20))).isTrue();
                String sent = s("fabric_probe_sent_total", "peer", peerA, "peer_rack", "r12", "transport", "udp", "size", "64");
                Map<String, Double> v = Map.of();
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (System.nanoTime() < deadline && v.getOrDefault(sent, 0.0) < 20) {
                    Thread.sleep(100);
                    v = PromText.parse(Http.get(b.port(), "/metrics?name[]=fabric_probe_sent_total&name[]=fabric_probe_lost_total").body());
                }
                assertThat(v.get(sent)).isGreaterThanOrEqualTo(20.0);
                assertThat(v).containsEntry(s("fabric_probe_lost_total", "peer", peerA, "peer_rack", "r12", "transport", "udp",
                        "size", "64"), 0.0);
                assertThat(b.probes().planned()).containsExactly(peerA);
                assertThat(b.probes().endpoint().labels()).containsEntry("rack", "r3");

                // A's endpoint leaves the Service: it leaves the plan
                kube.discovery().v1().endpointSlices().inNamespace("fabric").withName("fabricd-x").delete();
                deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                while (System.nanoTime() < deadline && !b.probes().planned().isEmpty()) {
                    Thread.sleep(100);
                }
                assertThat(b.probes().planned()).isEmpty();
            }
        } finally {
            try {
                server.destroy();
            } catch (IllegalStateException e) { // the emulator's shutdown timing out on a watch: not under test
                System.err.println("KubernetesMockServer teardown: " + e.getMessage());
            }
        }
    }
}
