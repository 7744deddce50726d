package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.agent.config.AgentConfig;
import io.fabricd.agent.config.ListenAddress;
import io.fabricd.agent.preflight.ProbeRound;
import io.fabricd.collectors.Fixtures;
import io.fabricd.probes.ProbeKey;
import io.fabricd.probes.peers.EndpointAuth;
import io.fabricd.testing.PrivateFiles;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real agent with http.max_requests 2, both requests held by a key holder: one by a body that
 * never finishes (a bandwidth start, signed with the probe key, whose body stops half way: bodies
 * on their way take half the slots at most), one by a preflight probe round whose peer accepts the
 * connection and never answers. Other requests get 503, but /healthz and /readyz are answered
 * outside that budget, so the kubelet does not restart an agent someone keeps busy.
 */
class HealthOutsideRequestBudgetTest {
    @Test
    void healthAndReadinessAreAnsweredWhileEveryRequestSlotIsHeld(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY + "\n");
        AgentConfig c = TestConfigs.withProbe(TestConfigs.yaml("collection: {interval: 1h}", "http: {max_requests: 2}"),
                AgentProbeTest.probe(key));
        List<Socket> held = new ArrayList<>();
        try (Agent a = new Agent(Fixtures.open("host-b-roce"), c, new ListenAddress("127.0.0.1", 0)).start();
             ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            assertThat(a.awaitReady(Duration.ofSeconds(20))).isTrue();
            int port = a.port();
            // a probe round whose peer takes the connection and never answers: the round waits for its endpoint,
            // then a body that stops half way
            EndpointAuth auth = new EndpointAuth(new ProbeKey(AgentProbeTest.KEY.getBytes(StandardCharsets.UTF_8)));
            byte[] body = ("{\"peers\":[\"127.0.0.1:" + silent.getLocalPort() + "\"],\"count\":1,\"size\":64}")
                    .getBytes(StandardCharsets.US_ASCII);
            String header = auth.request("POST", ProbeRound.PATH, a.probes().endpointAuth().agentId(), body,
                    System.currentTimeMillis() / 1000).header();
            Socket round = connect(port);
            held.add(round);
            round.getOutputStream().write(("POST " + ProbeRound.PATH + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n"
                    + EndpointAuth.REQUEST_HEADER + ": " + header + "\r\nContent-Type: application/json\r\nContent-Length: "
                    + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            round.getOutputStream().write(body);
            round.getOutputStream().flush();
            Thread.sleep(300); // its body read: the one body on its way that max_requests 2 takes is the slow one's
            held.add(SlowSignedBodiesTest.slowBody("127.0.0.1", port, a.probes().endpointAuth().agentId()));
            // both slots are taken: a scrape waits its turn (503, Retry-After)
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            int scrape = get(port, "GET", "/metrics");
            while (scrape != 503 && System.nanoTime() < deadline) {
                Thread.sleep(50); // the held requests' heads not read yet
                scrape = get(port, "GET", "/metrics");
            }
            assertThat(scrape).as("the unfinished body and the round hold both slots").isEqualTo(503);
            for (int i = 0; i < 3; i++) {
                assertThat(get(port, "GET", "/healthz")).isEqualTo(200);
                assertThat(get(port, "GET", "/readyz")).isEqualTo(200);
                assertThat(get(port, "HEAD", "/healthz")).isEqualTo(200);
            }
            assertThat(get(port, "GET", "/metrics")).isEqualTo(503);
            // refused for the budget while its body comes: closed once the body is over, 2 s at most
            try (RawHttp r = new RawHttp("127.0.0.1", port)) {
                r.write("POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n" + "x".repeat(64));
                assertThat(r.read().status()).isEqualTo(503);
                long answered = System.nanoTime();
                assertThat(r.closedByServer()).isTrue();
                assertThat(Duration.ofNanos(System.nanoTime() - answered).toMillis()).isLessThanOrEqualTo(4_500);
            }
        } finally {
            for (Socket s : held) {
                s.close();
            }
        }
    }

    private static Socket connect(int port) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        s.setSoTimeout(10_000);
        return s;
    }

    /** The status of one request over a new connection. */
    private static int get(int port, String method, String path) throws IOException {
        try (Socket s = connect(port)) {
            s.getOutputStream().write((method + " " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            String status = new String(in.readNBytes(12), StandardCharsets.US_ASCII);
            return status.startsWith("HTTP/1.1 ") ? Integer.parseInt(status.substring(9, 12)) : -1;
        }
    }
}
