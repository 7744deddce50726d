package io.fabricd.agent;

import static io.fabricd.testing.PromText.s;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabricd.agent.config.AgentConfig;
import io.fabricd.agent.config.ListenAddress;
import io.fabricd.collectors.Fixtures;
import io.fabricd.probes.ProbeKey;
import io.fabricd.probes.bandwidth.BandwidthMessages;
import io.fabricd.probes.peers.EndpointAuth;
import io.fabricd.probes.peers.EndpointClient;
import io.fabricd.testing.PrivateFiles;
import io.fabricd.testing.PromText;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The endpoint and bandwidth requests of real agents on loopback, attacked as docs/security.md's
 * "The pingmesh" says they hold: a request captured on its way to one agent is refused by another
 * whatever Host it names; a requester learns an agent's id once; an unauthenticated bandwidth body
 * is refused before it arrives and holds no request slot; a body other than the signed one, and
 * parameters out of range, are refused.
 */
class AgentSignedRequestsTest {
    private static final ProbeKey KEY = new ProbeKey(AgentProbeTest.KEY.getBytes(StandardCharsets.UTF_8));
    private static final String QP = "{\"qpn\":100,\"psn\":7,\"lid\":0,\"gid\":\"fe80:0000:0000:0000:0000:0000:0000:0001\","
            + "\"rkey\":4660,\"addr\":8323072,\"mtu\":1024}";

    private static Agent agent(Path key, String nodeName, String... yaml) {
        List<String> lines = new ArrayList<>(List.of("collection: {interval: 3600000ms}"));
        lines.addAll(Arrays.asList(yaml));
        AgentConfig c = TestConfigs.withProbe(TestConfigs.yaml(lines.toArray(String[]::new)), AgentProbeTest.probe(key, "node_name: " + nodeName));
        return new Agent(Fixtures.open("host-b-roce"), c, new ListenAddress("127.0.0.1", 0)).start();
    }

    @Test
    void aRequestCapturedOnItsWayToOneAgentIsRefusedByAnotherWhateverHostItNames(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY + "\n");
        try (Agent a = agent(key, "node-a"); Agent b = agent(key, "node-b"); TeeProxy mitm = new TeeProxy(a.port())) {
            String viaMitm = "127.0.0.1:" + mitm.port();
            EndpointClient client = new EndpointClient(KEY, Duration.ofSeconds(10));
            assertThat(client.fetch(viaMitm).host()).isEqualTo("node-a");
            String captured = last(mitm.headers(EndpointAuth.REQUEST_HEADER));
            // at B, naming the Host it was made for: refused, no endpoint given
            String replay = raw(b.port(), "GET " + EndpointClient.PATH + " HTTP/1.1\r\nHost: " + viaMitm + "\r\n"
                    + EndpointAuth.REQUEST_HEADER + ": " + captured + "\r\nConnection: close\r\n\r\n", new byte[0]);
            assertThat(replay).startsWith("HTTP/1.1 401").contains("(wrong_agent").doesNotContain("udp_port");
            // a bandwidth request likewise (A reads a snapshot: it says so, once the key passed)
            byte[] stop = "{\"id\":\"0123\",\"bytes\":1,\"messages\":1,\"nanos\":1}".getBytes(StandardCharsets.UTF_8);
            assertThatThrownBy(() -> client.post(viaMitm, BandwidthMessages.STOP_PATH, stop)).hasMessageContaining("answered 503");
            String bwCaptured = last(mitm.headers(EndpointAuth.REQUEST_HEADER));
            String bwReplay = raw(b.port(), "POST " + BandwidthMessages.STOP_PATH + " HTTP/1.1\r\nHost: " + viaMitm + "\r\n"
                    + EndpointAuth.REQUEST_HEADER + ": " + bwCaptured + "\r\nContent-Type: application/json\r\nContent-Length: "
                    + stop.length + "\r\nConnection: close\r\n\r\n", stop);
            assertThat(bwReplay).startsWith("HTTP/1.1 401").contains("(wrong_agent");
            assertThat(refused(b, "replayed")).isEqualTo(2.0);
            // counted by the HTTP server, not by the UDP responder, whose drops are probes'
            assertThat(Http.get(b.port(), "/metrics?name[]=fabric_probe_responder_dropped_total").body()).doesNotContain("endpoint_");
        }
    }

    @Test
    void aRequesterLearnsTheAgentIdFromOneRefusalAndSignsForItFromThenOn(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY + "\n");
        try (Agent a = agent(key, "node-a"); TeeProxy mitm = new TeeProxy(a.port())) {
            String via = "127.0.0.1:" + mitm.port();
            EndpointClient client = new EndpointClient(KEY, Duration.ofSeconds(10));
            assertThat(client.fetch(via).host()).isEqualTo("node-a");
            List<String> sent = mitm.headers(EndpointAuth.REQUEST_HEADER);
            assertThat(sent).as("the id unknown: one refusal that says it, then the request for it").hasSize(2);
            assertThat(sent.get(0).split(":")[3]).isEqualTo(EndpointAuth.UNKNOWN_AGENT);
            String id = sent.get(1).split(":")[3];
            assertThat(id).matches("[0-9a-f]{32}");
            // known: first time, for the endpoint and the bandwidth paths alike
            assertThat(client.fetch(via).host()).isEqualTo("node-a");
            assertThatThrownBy(() -> client.post(via, BandwidthMessages.GO_PATH, "{\"id\":\"x\"}".getBytes(StandardCharsets.UTF_8)))
                    .hasMessageContaining("answered 503");
            sent = mitm.headers(EndpointAuth.REQUEST_HEADER);
            assertThat(sent).hasSize(4);
            assertThat(sent.subList(2, 4)).allSatisfy(h -> assertThat(h.split(":")[3]).isEqualTo(id));
            // learning is not counted as a refusal
            assertThat(refused(a, "unauthenticated")).isZero();
            assertThat(refused(a, "replayed")).isZero();
        }
    }

    @Test
    void anUnauthenticatedBandwidthBodyIsRefusedBeforeItArrivesAndHoldsNoRequestSlot(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY + "\n");
        List<Socket> held = new ArrayList<>();
        try (Agent a = agent(key, "node-a", "http: {max_requests: 3}")) {
            assertThat(a.awaitReady(Duration.ofSeconds(20))).isTrue();
            for (int i = 0; i < 3; i++) { // as many as there are request slots
                Socket s = new Socket(InetAddress.getLoopbackAddress(), a.port());
                held.add(s);
                s.setSoTimeout(15_000); // below the 30 s idle timeout
                OutputStream out = s.getOutputStream();
                out.write(("POST " + BandwidthMessages.START_PATH + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        + "Content-Length: 60000\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                byte[] part = new byte[1000];
                Arrays.fill(part, (byte) ' ');
                out.write(part);
                out.flush();
            }
            for (Socket s : held) {
                String status;
                try {
                    status = readLine(s.getInputStream());
                } catch (SocketTimeoutException e) {
                    status = "no answer within 15 s: the agent waits for the body";
                }
                assertThat(status).as("answered with 59 000 bytes of the body still to come").startsWith("HTTP/1.1 401");
                // and closed: the rest of the body is not read into a kept-alive connection
                InputStream in = s.getInputStream();
                int c = 0;
                while (c >= 0) {
                    c = in.read();
                }
            }
            // their connections open, their bodies unfinished: every request slot is free
            for (int i = 0; i < 4; i++) {
                assertThat(Http.get(a.port(), "/api/v1/findings").statusCode()).isEqualTo(200);
            }
        } finally {
            for (Socket s : held) {
                s.close();
            }
        }
    }

    @Test
    void anAuthenticatedBodyMustBeTheSignedOneAndArriveInTime(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY + "\n");
        try (Agent a = agent(key, "node-a")) {
            EndpointAuth auth = new EndpointAuth(KEY);
            byte[] signed = "{\"id\":\"aaaa\",\"bytes\":1,\"messages\":1,\"nanos\":1}".getBytes(StandardCharsets.UTF_8);
            byte[] sent = "{\"id\":\"bbbb\",\"bytes\":1,\"messages\":1,\"nanos\":1}".getBytes(StandardCharsets.UTF_8);
            // the id, as a requester learns it
            String told = post(a.port(), auth.request("POST", BandwidthMessages.STOP_PATH, EndpointAuth.UNKNOWN_AGENT, signed, now()),
                    signed, signed.length);
            Matcher m = Pattern.compile("(?im)^" + EndpointAuth.AGENT_ID_HEADER + ": ([0-9a-f]{32})").matcher(told);
            assertThat(m.find()).as(told).isTrue();
            String id = m.group(1);
            EndpointAuth.Request r = auth.request("POST", BandwidthMessages.STOP_PATH, id, signed, now());
            assertThat(post(a.port(), r, sent, sent.length)).startsWith("HTTP/1.1 401").contains("(body_mismatch");
            // its nonce is spent all the same
            assertThat(post(a.port(), r, signed, signed.length)).startsWith("HTTP/1.1 401").contains("(replayed)");
            // the right body: through to the server (none: a snapshot)
            assertThat(post(a.port(), auth.request("POST", BandwidthMessages.STOP_PATH, id, signed, now()), signed, signed.length))
                    .startsWith("HTTP/1.1 503");
            // a signed body that does not come: the connection is closed at the deadline (10 s), before the 30 s idle timeout
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), a.port())) {
                s.setSoTimeout(25_000);
                OutputStream out = s.getOutputStream();
                out.write(head(auth.request("POST", BandwidthMessages.STOP_PATH, id, signed, now()), signed.length));
                out.write(signed, 0, 10);
                out.flush();
                String answer;
                try {
                    answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
                } catch (SocketTimeoutException e) {
                    answer = "still open after 25 s";
                }
                assertThat(answer).as("closed without an answer").isEmpty();
            }
        }
    }

    @Test
    void bandwidthParametersOutOfRangeAreRefusedWith400InOneLine(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY + "\n");
        try (Agent a = agent(key, "node-a")) {
            String peer = "127.0.0.1:" + a.port();
            EndpointClient client = new EndpointClient(KEY, Duration.ofSeconds(10));
            String qp4 = String.join(",", QP, QP, QP, QP);
            Map<String, String> starts = Map.of(
                    // size x qps = 2^64: 0 in long arithmetic
                    "\"size\":4611686018427387904,\"qps\":4,\"durationMs\":1000,\"qp\":[" + qp4 + "]", "size must be 1 to 1073741824",
                    "\"size\":99999999999999999999,\"qps\":1,\"durationMs\":1000,\"qp\":[" + QP + "]", "out of range",
                    "\"size\":4096,\"qps\":2147483647,\"durationMs\":1000,\"qp\":[" + QP + "]", "qps must be 1 to 64",
                    "\"size\":4096,\"qps\":1,\"durationMs\":9223372036854775807,\"qp\":[" + QP + "]", "durationMs must be 1 to 3600000",
                    "\"size\":4096,\"qps\":1,\"durationMs\":1000,\"qp\":[" + QP.replace("\"qpn\":100", "\"qpn\":4294967296") + "]",
                    "queue pair address is out of range",
                    "\"size\":4096,\"qps\":1,\"durationMs\":1000,\"pcieBps\":-1,\"qp\":[" + QP + "]", "pcieBps must be");
            for (Map.Entry<String, String> e : starts.entrySet()) {
                byte[] body = ("{\"client\":\"x\"," + e.getKey() + "}").getBytes(StandardCharsets.UTF_8);
                assertThatThrownBy(() -> client.post(peer, BandwidthMessages.START_PATH, body)).as(e.getKey())
                        .hasMessageContaining("answered 400: ").hasMessageContaining(e.getValue());
            }
            Map<String, String> stops = Map.of(
                    "{\"id\":\"x\",\"bytes\":-1,\"messages\":1,\"nanos\":1}", "bytes and messages must be 0 or more",
                    "{\"id\":\"x\",\"bytes\":1,\"messages\":1,\"nanos\":9223372036854775807}", "nanos must be 0 to",
                    "{\"id\":\"x\",\"bytes\":1,\"messages\":1,\"nanos\":1,\"limit\":\"x\\ny\"}", "limit must be one of",
                    "{\"bytes\":1}", "id must be");
            for (Map.Entry<String, String> e : stops.entrySet()) {
                byte[] body = e.getKey().getBytes(StandardCharsets.UTF_8);
                assertThatThrownBy(() -> client.post(peer, BandwidthMessages.STOP_PATH, body)).as(e.getKey())
                        .hasMessageContaining("answered 400: ").hasMessageContaining(e.getValue());
            }
            assertThatThrownBy(() -> client.post(peer, BandwidthMessages.GO_PATH, "{}".getBytes(StandardCharsets.UTF_8)))
                    .hasMessageContaining("answered 400: id must be");
            // in range: through to the server (none here: a snapshot)
            assertThatThrownBy(() -> client.post(peer, BandwidthMessages.START_PATH,
                    ("{\"client\":\"x\",\"size\":4096,\"qps\":1,\"durationMs\":1000,\"qp\":[" + QP + "]}").getBytes(StandardCharsets.UTF_8)))
                    .hasMessageContaining("answered 503");
        }
    }

    private static long now() {
        return System.currentTimeMillis() / 1000;
    }

    private static byte[] head(EndpointAuth.Request r, int length) {
        return ("POST " + BandwidthMessages.STOP_PATH + " HTTP/1.1\r\nHost: x\r\n" + EndpointAuth.REQUEST_HEADER + ": " + r.header()
                + "\r\nContent-Type: application/json\r\nContent-Length: " + length + "\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
    }

    private static String post(int port, EndpointAuth.Request r, byte[] body, int length) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(20_000);
            OutputStream out = s.getOutputStream();
            out.write(head(r, length));
            out.write(body);
            out.flush();
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    /** One request over a fresh connection, as written; the whole answer. */
    private static String raw(int port, String head, byte[] body) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(20_000);
            OutputStream out = s.getOutputStream();
            out.write(head.getBytes(StandardCharsets.ISO_8859_1));
            out.write(body);
            out.flush();
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int c = in.read(); c >= 0 && c != '\n'; c = in.read()) {
            b.write(c);
        }
        return b.toString(StandardCharsets.ISO_8859_1).strip();
    }

    private static String last(List<String> l) {
        assertThat(l).isNotEmpty();
        return l.get(l.size() - 1);
    }

    /** fabric_agent_http_signed_refused_total{reason}: signed requests refused 401. */
    private static double refused(Agent a, String reason) throws Exception {
        return PromText.parse(Http.get(a.port(), "/metrics?name[]=fabric_agent_http_signed_refused_total").body())
                .getOrDefault(s("fabric_agent_http_signed_refused_total", "reason", reason), 0.0);
    }
}
