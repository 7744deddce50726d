package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.fabricd.agent.config.AgentConfig;
import io.fabricd.agent.config.ListenAddress;
import io.fabricd.agent.preflight.Answer;
import io.fabricd.agent.preflight.PreflightState;
import io.fabricd.collectors.Fixtures;
import io.fabricd.model.probe.ProbeResults;
import io.fabricd.model.topology.Placement;
import io.fabricd.probes.ProbeKey;
import io.fabricd.probes.peers.EndpointAuth;
import io.fabricd.probes.peers.EndpointClient;
import io.fabricd.testing.PrivateFiles;
import java.io.IOException;
import java.io.OutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The preflight paths of real agents on loopback (docs/preflight.md, "What the agents answer";
 * docs/security.md, "Preflight requests"): the state with its findings and probe windows, the
 * on-demand probe round with its bounds and its one-at-a-time and per-minute limits, the bandwidth
 * test's refusals, all signed with the probe key and refused unread without it.
 */
class AgentPreflightTest {
    private static final ProbeKey KEY = new ProbeKey(AgentProbeTest.KEY.getBytes(StandardCharsets.UTF_8));
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private static final String STATE = "/api/v1/preflight/state";
    private static final String PROBE = "/api/v1/preflight/probe";
    private static final String BANDWIDTH = "/api/v1/preflight/bandwidth";

    /** An agent of {@code fixture} probing {@code peers} every 500 ms; more probe keys in {@code lines}. */
    private static Agent agent(Path key, String fixture, List<String> peers, String... lines) {
        List<String> probe = new ArrayList<>(List.of("peers: [" + peers.stream().map(p -> "'" + p + "'").collect(Collectors.joining(", "))
                + "]", "interval: 500ms", "jitter: 0", "count: 20"));
        probe.addAll(Arrays.asList(lines));
        AgentConfig c = TestConfigs.withProbe(AgentHttpTest.config(Duration.ofHours(1)), AgentProbeTest.probe(key, probe.toArray(String[]::new)));
        Agent a = new Agent(Fixtures.open(fixture), c, new ListenAddress("127.0.0.1", 0)).start();
        try {
            assertThat(a.awaitReady(Duration.ofSeconds(20))).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return a;
    }

    private static String at(Agent a) {
        return "127.0.0.1:" + a.port();
    }

    /** An answer to a request signed for the agent: status, Retry-After, body, and whether the answer is signed for it, by it. */
    private record Reply(int status, String retryAfter, String body, boolean signed) {
        JsonNode json() throws IOException {
            return JSON.readTree(body);
        }
    }

    private static Reply post(Agent a, String path, String body) throws Exception {
        EndpointAuth auth = new EndpointAuth(KEY);
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        EndpointAuth.Request r = auth.request("POST", path, a.probes().endpointAuth().agentId(), b, System.currentTimeMillis() / 1000);
        HttpResponse<String> res = HTTP.send(HttpRequest.newBuilder(URI.create("http://" + at(a) + path)).timeout(Duration.ofSeconds(60))
                .header(EndpointAuth.REQUEST_HEADER, r.header()).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(b)).build(), HttpResponse.BodyHandlers.ofString());
        return new Reply(res.statusCode(), res.headers().firstValue("Retry-After").orElse(null), res.body(),
                auth.answerer(r.nonce(), a.probes().endpointAuth().agentId(), res.body().getBytes(StandardCharsets.UTF_8),
                        res.headers().firstValue(EndpointAuth.ANSWER_HEADER).orElse(null)) != null);
    }

    @Test
    void theStateHasTheFindingsOfDiagnoseAndTheProbeWindowsByPeerHost(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY + "\n");
        try (Agent a = agent(key, "host-a-ib", List.of()); Agent b = agent(key, "host-b-roce", List.of(at(a)))) {
            // B's pingmesh has probed A a few rounds
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (System.nanoTime() < deadline && b.probes().results().windows().stream().noneMatch(w -> w.sent() >= 40)) {
                Thread.sleep(100);
            }
            // through the client the gate uses: the key proven both ways
            JsonNode s = JSON.readTree(new EndpointClient(KEY, Duration.ofSeconds(10)).post(at(b), STATE,
                    ("{\"peers\":[\"" + at(a) + "\"]}").getBytes(StandardCharsets.UTF_8)));
            assertThat(s.get("node").asText()).isEqualTo("roce-node-07");
            assertThat(s.get("host").asText()).isEqualTo("roce-node-07");
            assertThat(s.get("collected_at").asText()).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");
            // what the gate holds a collection stale against: 3 of these
            assertThat(s.get("collection_interval_seconds").asDouble()).isEqualTo(3600.0);
            // the very objects of the diagnose JSON (as /api/v1/findings has them), a critical one among them
            JsonNode diagnose = JSON.readTree(Http.get(b.port(), "/api/v1/findings").body()).get("findings");
            assertThat(s.get("findings")).isEqualTo(diagnose);
            assertThat(s.get("findings").findValuesAsText("severity")).contains("critical");
            assertThat(s.get("findings").get(0).fieldNames()).toIterable()
                    .containsExactly("check", "severity", "subject", "summary", "evidence", "remediation");
            JsonNode probes = s.get("probes");
            assertThat(probes).hasSize(2); // 64 and 1024 bytes
            for (JsonNode w : probes) {
                assertThat(w.get("peer").asText()).as("the host A's endpoint gives").isEqualTo("dgx-h100-01");
                assertThat(w.get("peer_address").asText()).isEqualTo(at(a));
                assertThat(w.get("transport").asText()).isEqualTo("udp");
                assertThat(w.get("sent").asInt()).isGreaterThanOrEqualTo(20);
                assertThat(w.get("lost").asInt()).isZero();
                assertThat(w.get("p50_seconds").asDouble()).isPositive();
                assertThat(w.get("p99_seconds").asDouble()).isGreaterThanOrEqualTo(w.get("p50_seconds").asDouble());
                // A's responder's hold: its median and its tail, the gate's evidence of a host slow to answer
                assertThat(w.get("hold_p50_seconds").asDouble()).isPositive();
                assertThat(w.get("hold_p90_seconds").asDouble()).isGreaterThanOrEqualTo(w.get("hold_p50_seconds").asDouble());
            }
            assertThat(probes.findValuesAsText("size")).containsExactlyInAnyOrder("64", "1024");
            assertThat(s.has("left_out")).isFalse();
            // A probes nobody: no windows; an empty body is a request without peers
            Reply empty = post(a, STATE, "");
            assertThat(empty.status()).isEqualTo(200);
            assertThat(empty.signed()).isTrue();
            assertThat(empty.json().get("probes")).isEmpty();
            assertThat(empty.json().get("node").asText()).isEqualTo("dgx-h100-01");
        }
    }

    @Test
    void theStateSaysWhereTheHostSitsWhenTheAgentKnows(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY + "\n");
        try (Agent a = agent(key, "host-e-roce-variants", List.of())) {
            // a running agent knows nothing of its placement yet: no placement key at all
            assertThat(post(a, STATE, "").json().has("placement")).isFalse();
            PreflightState state = new PreflightState(a.loop()::latest, () -> new ProbeResults(List.of(), List.of(), List.of()), Map::of,
                    () -> "node-e", null, () -> Optional.of(new Placement("node-e", List.of("leaf-07", "spine-1"),
                            "nvl-2", Placement.Source.LLDP)));
            JsonNode j = JSON.readTree(state.answer(new byte[0]).body());
            assertThat(j.get("placement").toString()).isEqualTo("{\"switches\":[\"leaf-07\",\"spine-1\"],\"accelerator\":\"nvl-2\","
                    + "\"source\":\"lldp\"}");
        }
    }

    @Test
    void aStateLargerThanARequesterReadsLeavesOutTheWindowsOutsideTheSetFirst(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY + "\n");
        try (Agent a = agent(key, "host-e-roce-variants", List.of())) {
            // a pingmesh of 1000 peers: ~150 KB of windows
            List<ProbeResults.Window> many = IntStream.range(0, 1000).mapToObj(i -> new ProbeResults.Window("10.0." + i / 250 + "."
                    + i % 250 + ":9530", "", "udp", 64, null, 600, 0, 0, false, 1e-5, 2e-5, 4e-5, 9e-5)).toList();
            PreflightState state = new PreflightState(a.loop()::latest, () -> new ProbeResults(many, List.of(), List.of()), Map::of,
                    () -> "node-e", null);
            Answer r = state.answer("{\"peers\":[\"10.0.0.1:9530\",\"10.0.0.2:9530\"]}".getBytes(StandardCharsets.UTF_8));
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body().length).isLessThanOrEqualTo(64 * 1024);
            JsonNode j = JSON.readTree(r.body());
            assertThat(j.get("probes").findValuesAsText("peer_address")).containsExactly("10.0.0.1:9530", "10.0.0.2:9530");
            assertThat(j.at("/left_out/probes").asInt()).isEqualTo(998);
            assertThat(j.at("/left_out/findings").asInt()).isZero();
            assertThat(j.get("findings")).isEqualTo(JSON.readTree(Http.get(a.port(), "/api/v1/findings").body()).get("findings"));
            // without a set to keep, the info and then the warning findings go before anything critical
            // and then the windows that still do not fit
            Answer all = state.answer(new byte[0]);
            assertThat(all.body().length).isLessThanOrEqualTo(64 * 1024);
            JsonNode k = JSON.readTree(all.body());
            assertThat(k.at("/left_out/findings").asInt()).isPositive();
            assertThat(k.at("/left_out/probes").asInt()).isBetween(1, 999);
            assertThat(k.get("probes").size() + k.at("/left_out/probes").asInt()).isEqualTo(1000);
            assertThat(k.get("findings").findValuesAsText("severity")).contains("critical").doesNotContain("info");
        }
    }

    @Test
    void aClientStreamingATooLargeBodyReadsThe413RatherThanAReset(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY + "\n");
        try (Agent a = agent(key, "host-a-ib", List.of())) {
            // the 413 goes out when the head arrives; had the connection closed then, the body's later
            // segments would meet a closed socket and the client's kernel, reset, would drop the answer
            // (one request in nine on loopback): the agent reads and drops the rest, then closes
            List<String> answers = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                for (String path : List.of(STATE, BANDWIDTH)) {
                    try {
                        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://" + at(a) + path))
                                .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[700_000])).build(), HttpResponse.BodyHandlers.ofString());
                        answers.add(r.statusCode() + " " + r.headers().firstValue("connection").orElse("") + " " + r.body().strip());
                    } catch (IOException e) {
                        answers.add(e.toString());
                    }
                }
            }
            assertThat(answers).hasSize(100).allSatisfy(r -> assertThat(r).startsWith("413 close a ").endsWith(" is at most 65536 bytes"));
        }
    }

    @Test
    void unsignedOrWronglySignedRequestsGet401BeforeTheirBodyIsRead(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY + "\n");
        try (Agent a = agent(key, "host-a-ib", List.of())) {
            EndpointClient wrong = new EndpointClient(new ProbeKey("another-key-of-more-than-16-bytes".getBytes(StandardCharsets.UTF_8)),
                    Duration.ofSeconds(5));
            for (String path : List.of(STATE, PROBE, BANDWIDTH)) {
                assertThatThrownBy(() -> wrong.post(at(a), path, "{}".getBytes(StandardCharsets.UTF_8))).as(path)
                        .isInstanceOf(IOException.class).hasMessageContaining("refused the probe key (401)");
                // unsigned, 59 000 bytes of the body still to come: 401 at once, and the connection closed
                // (LingeringClose.MAX_MS later, the rest of the body never having come)
                try (Socket s = new Socket(InetAddress.getLoopbackAddress(), a.port())) {
                    s.setSoTimeout(15_000);
                    OutputStream out = s.getOutputStream();
                    out.write(("POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
                    out.write(new byte[1000]);
                    out.flush();
                    String answer;
                    try {
                        answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
                    } catch (SocketTimeoutException e) {
                        answer = "no answer within 15 s: the agent waits for the body";
                    }
                    assertThat(answer).as(path).startsWith("HTTP/1.1 401").contains("preflight requests need a valid", "(missing)");
                }
                HttpResponse<String> get = HTTP.send(HttpRequest.newBuilder(URI.create("http://" + at(a) + path)).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(get.statusCode()).isEqualTo(405);
                HttpResponse<String> big = HTTP.send(HttpRequest.newBuilder(URI.create("http://" + at(a) + path))
                        .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[70_000])).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(big.statusCode()).isEqualTo(413);
            }
        }
    }

    @Test
    void aProbeRoundToTwoPeersAnswersAndASecondAtTheSameTimeGets429(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY + "\n");
        try (Agent a = agent(key, "host-a-ib", List.of()); Agent c = agent(key, "host-c-rxe", List.of());
             // its pingmesh probes C all along; a round's 1000 probes 4 ms apart take 4 s
             Agent b = agent(key, "host-b-roce", List.of(at(c)), "pacing: 4ms")) {
            String body = "{\"peers\":[\"" + at(a) + "\",\"" + at(c) + "\",\"127.0.0.1:1\"],\"count\":1000,\"size\":64}";
            ExecutorService two = Executors.newFixedThreadPool(2);
            List<Reply> both;
            try {
                // sent together: whichever comes second finds the other's round running
                CompletableFuture<Reply> first = CompletableFuture.supplyAsync(() -> call(b, PROBE, body), two);
                CompletableFuture<Reply> second = CompletableFuture.supplyAsync(() -> call(b, PROBE, body), two);
                both = List.of(first.get(), second.get());
            } finally {
                two.shutdownNow();
            }
            Reply ran = both.stream().filter(r -> r.status() == 200).findFirst().orElseThrow(() -> new AssertionError(both));
            Reply busy = both.stream().filter(r -> r.status() == 429).findFirst().orElseThrow(() -> new AssertionError(both));
            assertThat(busy.body()).contains("a preflight probe round is running", "one at a time").doesNotContain("\n\n");
            assertThat(busy.body().strip()).doesNotContain("\n");
            assertThat(Integer.parseInt(busy.retryAfter())).isBetween(1, 10);
            assertThat(ran.signed()).isTrue();
            JsonNode j = ran.json();
            assertThat(j.get("node").asText()).isEqualTo("roce-node-07");
            JsonNode results = j.get("results");
            assertThat(results.findValuesAsText("peer")).containsExactly(at(a), at(c), "127.0.0.1:1");
            assertThat(results.get(0).get("peer_host").asText()).isEqualTo("dgx-h100-01");
            assertThat(results.get(1).get("peer_host").asText()).isEqualTo("vm-rxe-01");
            for (JsonNode r : List.of(results.get(0), results.get(1))) {
                assertThat(r.get("error").isNull()).as(r.toString()).isTrue();
                assertThat(r.get("sent").asInt()).isEqualTo(1000);
                assertThat(r.get("lost").asInt() + r.get("late").asInt()).as(r.toString()).isLessThan(100);
                assertThat(r.get("p50_seconds").asDouble()).isPositive();
                assertThat(r.get("p99_seconds").asDouble()).isGreaterThanOrEqualTo(r.get("p50_seconds").asDouble());
                assertThat(r.get("hold_p50_seconds").asDouble()).isPositive();
                assertThat(r.get("hold_p90_seconds").asDouble()).isGreaterThanOrEqualTo(r.get("hold_p50_seconds").asDouble());
            }
            JsonNode nobody = results.get(2);
            assertThat(nobody.get("error").asText()).contains("cannot reach 127.0.0.1:1");
            assertThat(nobody.get("sent").asInt()).isZero();
            assertThat(nobody.get("p50_seconds").isNull()).isTrue();
            assertThat(nobody.get("hold_p90_seconds").isNull()).isTrue();
            assertThat(nobody.get("peer_host").isNull()).isTrue();
            // the round was the agent's own: the pingmesh still plans C alone, and its windows hold its own rounds
            // of 20 probes, none of the round's 1000 to A or C, and lost none meanwhile
            assertThat(b.probes().planned()).containsExactly(at(c));
            assertThat(b.probes().results().windows()).isNotEmpty().allSatisfy(w -> {
                assertThat(w.peer()).isEqualTo(at(c));
                assertThat(w.sent() % 20).as(w.toString()).isZero();
                assertThat(w.lost()).as(w.toString()).isZero();
            });
            // over: the next round runs
            assertThat(post(b, PROBE, "{\"peers\":[\"" + at(a) + "\"],\"count\":5,\"size\":1024}").status()).isEqualTo(200);
        }
    }

    /**
     * Where a round's probes may go: only to an address whose agent proved it holds the key. A peer
     * the request names that answers the endpoint request unsigned (a web server, or anything that
     * is not an agent of this fabric) gets that request and not one probe, even at the UDP port it
     * names; a genuine agent named by its host name is asked and probed at the one address the name
     * gave.
     */
    @Test
    void aPeerThatIsNoAgentOfTheFabricGetsTheEndpointRequestAndNoProbe(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY + "\n");
        InetAddress lo = InetAddress.getLoopbackAddress();
        HttpServer impostor = HttpServer.create(new InetSocketAddress(lo, 0), 0);
        try (DatagramSocket target = new DatagramSocket(0, lo); Agent a = agent(key, "host-a-ib", List.of());
             Agent c = agent(key, "host-c-rxe", List.of())) {
            byte[] endpoint = ("{\"host\":\"victim\",\"udp_port\":" + target.getLocalPort() + "}").getBytes(StandardCharsets.UTF_8);
            impostor.createContext("/", x -> {
                x.getResponseHeaders().add("Content-Type", "application/json");
                x.sendResponseHeaders(200, endpoint.length);
                x.getResponseBody().write(endpoint);
                x.close();
            });
            impostor.start();
            String fake = "127.0.0.1:" + impostor.getAddress().getPort();
            String byName = "localhost:" + c.port();
            Reply r = post(a, PROBE, "{\"peers\":[\"" + fake + "\",\"" + byName + "\"],\"count\":50,\"size\":64}");
            assertThat(r.status()).as(r.body()).isEqualTo(200);
            JsonNode results = r.json().get("results");
            assertThat(results.findValuesAsText("peer")).containsExactly(fake, byName);
            assertThat(results.get(0).get("error").asText()).contains("not signed with the probe key", "not a fabricd agent of this fabric");
            assertThat(results.get(0).get("sent").asInt()).isZero();
            assertThat(results.get(1).get("error").isNull()).as(results.get(1).toString()).isTrue();
            assertThat(results.get(1).get("sent").asInt()).isEqualTo(50);
            target.setSoTimeout(1_000);
            assertThatThrownBy(() -> target.receive(new DatagramPacket(new byte[9000], 9000)))
                    .as("a probe at the UDP port the impostor named").isInstanceOf(SocketTimeoutException.class);
        } finally {
            impostor.stop(0);
        }
    }

    @Test
    void roundsOfGatesBackToBackAreAdmittedAndTheMinutesProbesAreBounded(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY + "\n");
        try (Agent a = agent(key, "host-a-ib", List.of()); Agent b = agent(key, "host-b-roce", List.of())) {
            // a gate asks each agent for a small round or two and takes seconds: gates run back to back ask
            // more than six in a minute, and are answered
            String small = "{\"peers\":[\"" + at(a) + "\"],\"count\":2,\"size\":64}";
            for (int i = 1; i <= 8; i++) {
                Reply r = post(b, PROBE, small);
                assertThat(r.status()).as("round " + i + ": " + r.body()).isEqualTo(200);
                assertThat(r.json().at("/results/0/sent").asInt()).isEqualTo(2);
            }
            // rounds of the most peers and probes a request may ask: six of them a minute in all, whatever else ran
            String big = "{\"peers\":[" + IntStream.rangeClosed(2, 65).mapToObj(i -> "\"127.0.0." + i + ":1\"")
                    .collect(Collectors.joining(",")) + "],\"count\":1000,\"size\":64}";
            for (int i = 1; i <= 5; i++) {
                Reply r = post(b, PROBE, big);
                assertThat(r.status()).as("big round " + i + ": " + r.body()).isEqualTo(200);
            }
            Reply sixth = post(b, PROBE, big);
            assertThat(sixth.status()).isEqualTo(429);
            assertThat(sixth.body()).contains("320016 probes asked of preflight probe rounds in the last minute, and this one's 64000 would"
                    + " pass the 384000 a minute may have: ask again in");
            assertThat(Integer.parseInt(sixth.retryAfter())).isBetween(1, 60);
            // a small one still fits the minute's probes
            assertThat(post(b, PROBE, small).status()).isEqualTo(200);
            // the state is not a round: answered all the same
            assertThat(post(b, STATE, "{}").status()).isEqualTo(200);
        }
    }

    @Test
    void requestsOutOfBoundsGet400InOneLine(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY + "\n");
        try (Agent a = agent(key, "host-a-ib", List.of())) {
            String peer = "\"127.0.0.1:9\"";
            String many = IntStream.range(0, 65).mapToObj(i -> "\"10.0.0." + i + ":9530\"").collect(Collectors.joining(","));
            String tooMany = IntStream.range(0, 1025).mapToObj(i -> "\"n" + i + ":9530\"").collect(Collectors.joining(","));
            Map<String, String[]> bad = Map.ofEntries(
                    Map.entry("probe 65 peers", new String[] {PROBE, "{\"peers\":[" + many + "],\"count\":1,\"size\":64}",
                        "peers must list 1 to 64 agents"}),
                    Map.entry("probe no peers", new String[] {PROBE, "{\"count\":1,\"size\":64}", "peers must list 1 to 64 agents"}),
                    Map.entry("probe count 0", new String[] {PROBE, "{\"peers\":[" + peer + "],\"count\":0,\"size\":64}", "count must be 1 to 1000"}),
                    Map.entry("probe count 1001", new String[] {PROBE, "{\"peers\":[" + peer + "],\"count\":1001,\"size\":64}",
                        "count must be 1 to 1000"}),
                    Map.entry("probe count 2^32", new String[] {PROBE, "{\"peers\":[" + peer + "],\"count\":4294967297,\"size\":64}",
                        "not a preflight request"}),
                    Map.entry("probe count 1.5", new String[] {PROBE, "{\"peers\":[" + peer + "],\"count\":1.5,\"size\":64}",
                        "not a preflight request"}),
                    Map.entry("probe size 63", new String[] {PROBE, "{\"peers\":[" + peer + "],\"count\":1,\"size\":63}", "size must be 64 to 9000"}),
                    Map.entry("probe size 9001", new String[] {PROBE, "{\"peers\":[" + peer + "],\"count\":1,\"size\":9001}",
                        "size must be 64 to 9000"}),
                    Map.entry("probe not a peer", new String[] {PROBE, "{\"peers\":[\"x\\ny:1/z\"],\"count\":1,\"size\":64}",
                        "is not HOST:PORT"}),
                    Map.entry("probe not JSON", new String[] {PROBE, "peers=1\u0000", "not a preflight request"}),
                    Map.entry("state 1025 peers", new String[] {STATE, "{\"peers\":[" + tooMany + "]}", "peers must list 0 to 1024 agents"}),
                    Map.entry("state peers a string", new String[] {STATE, "{\"peers\":\"a:1\"}", "not a preflight request"}),
                    Map.entry("bandwidth no peer", new String[] {BANDWIDTH, "{\"duration_ms\":1000}", "a peer is null"}),
                    Map.entry("bandwidth duration 0", new String[] {BANDWIDTH, "{\"peer\":" + peer + ",\"duration_ms\":0}",
                        "duration_ms must be 1 to 20000"}),
                    Map.entry("bandwidth size 2^26+1", new String[] {BANDWIDTH, "{\"peer\":" + peer + ",\"size\":67108865}",
                        "size must be 1 to 67108864"}));
            for (Map.Entry<String, String[]> e : bad.entrySet()) {
                Reply r = post(a, e.getValue()[0], e.getValue()[1]);
                assertThat(r.status()).as(e.getKey() + ": " + r.body()).isEqualTo(400);
                assertThat(r.body()).as(e.getKey()).contains(e.getValue()[2]).endsWith("\n").doesNotContain("Exception");
                assertThat(r.body().strip()).as(e.getKey()).doesNotContain("\n");
            }
            // none of them was a round
            assertThat(post(a, PROBE, "{\"peers\":[\"" + at(a) + "\"],\"count\":1,\"size\":64}").status()).isEqualTo(200);
        }
    }

    @Test
    void aBandwidthTestFromASnapshotAgentIs503WithTheReason(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY + "\n");
        try (Agent a = agent(key, "host-b-roce", List.of())) {
            Reply r = post(a, BANDWIDTH, "{\"peer\":\"127.0.0.1:9\",\"duration_ms\":1000,\"size\":65536}");
            assertThat(r.status()).isEqualTo(503);
            assertThat(r.body()).isEqualTo("this agent reads a snapshot, not a live host: no bandwidth tests\n");
            assertThatThrownBy(() -> new EndpointClient(KEY, Duration.ofSeconds(10)).post(at(a), BANDWIDTH,
                    "{\"peer\":\"127.0.0.1:9\"}".getBytes(StandardCharsets.UTF_8))).hasMessageContaining("answered 503: this agent reads a snapshot");
        }
    }

    @Test
    void withoutAKeyThePathsSaySoAndWithBasicAuthTheyNeedNoPassword(@TempDir Path tmp) throws Exception {
        try (Agent none = new Agent(Fixtures.open("host-a-ib"), AgentHttpTest.config(Duration.ofHours(1)),
                new ListenAddress("127.0.0.1", 0)).start()) {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://" + at(none) + STATE))
                    .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(503);
            assertThat(r.body()).contains("no probe key");
        }
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY + "\n");
        Path web = Files.writeString(tmp.resolve("web.yml"), "basic_auth_users:\n  prometheus: " + AgentTlsTest.HASH + "\n");
        AgentConfig c = TestConfigs.withProbe(TestConfigs.yaml("collection: {interval: 1h}", "http: {web_config_file: '" + web + "'}"),
                AgentProbeTest.probe(key));
        try (Agent a = new Agent(Fixtures.open("host-a-ib"), c, new ListenAddress("127.0.0.1", 0)).start()) {
            assertThat(a.awaitReady(Duration.ofSeconds(20))).isTrue();
            assertThat(Http.get(a.port(), "/api/v1/findings").statusCode()).isEqualTo(401);
            Reply s = post(a, STATE, "{}");
            assertThat(s.status()).isEqualTo(200);
            assertThat(s.signed()).isTrue();
        }
    }

    private static Reply call(Agent a, String path, String body) {
        try {
            return post(a, path, body);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
