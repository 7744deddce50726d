package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.agent.config.AgentConfig;
import io.fabricd.agent.config.ListenAddress;
import io.fabricd.collectors.Fixtures;
import io.fabricd.probes.ProbeKey;
import io.fabricd.probes.bandwidth.BandwidthMessages;
import io.fabricd.probes.peers.EndpointAuth;
import io.fabricd.testing.PrivateFiles;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A key holder sending signed bodies slowly (a bandwidth start whose body stops half way, each
 * holding a request slot for up to 10 s) against a real agent with http.max_requests 6: from one
 * address it holds two slots, from many half of them, and the scrapes meanwhile get 200. Before,
 * six such bodies held every slot and /metrics answered 503.
 */
class SlowSignedBodiesTest {
    private static final EndpointAuth AUTH = new EndpointAuth(new ProbeKey(AgentProbeTest.KEY.getBytes(StandardCharsets.UTF_8)));

    @Test
    void slowBodiesHoldTwoSlotsPerAddressAndHalfInAllSoScrapesAreAnswered(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY + "\n");
        AgentConfig c = TestConfigs.withProbe(TestConfigs.yaml("collection: {interval: 1h}", "http: {max_requests: 6}"), AgentProbeTest.probe(key));
        List<Socket> held = new ArrayList<>();
        try (Agent a = new Agent(Fixtures.open("host-b-roce"), c, new ListenAddress("127.0.0.1", 0)).start()) {
            assertThat(a.awaitReady(Duration.ofSeconds(20))).isTrue();
            int port = a.port();
            String id = a.probes().endpointAuth().agentId();
            // one address, six slow bodies: two are read, the others refused at once
            List<Integer> answers = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                Socket s = slowBody("127.0.7.1", port, id);
                held.add(s);
                answers.add(status(s, 1_500));
            }
            assertThat(answers).containsExactly(-1, -1, 429, 429, 429, 429);
            assertThat(scrape(port)).as("a scrape while one address sends slow bodies").isEqualTo(200);
            // from four more addresses, one each: half of the six slots in all are for bodies on their way
            List<Integer> more = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                Socket s = slowBody("127.0.8." + (1 + i), port, id);
                held.add(s);
                more.add(status(s, 1_500));
            }
            assertThat(more).containsExactly(-1, 429, 429, 429);
            assertThat(scrape(port)).as("a scrape while many addresses send slow bodies").isEqualTo(200);
            // a body that went away with its connection leaves its place
            held.get(0).close();
            Thread.sleep(300);
            Socket again = slowBody("127.0.7.1", port, id);
            held.add(again);
            assertThat(status(again, 1_500)).as("a slow body from the address once one of its own went").isEqualTo(-1);
        } finally {
            for (Socket s : held) {
                s.close();
            }
        }
    }

    /** A signed bandwidth start from {@code from} whose body stops after its first bytes. */
    static Socket slowBody(String from, int port, String agentId) throws IOException {
        byte[] body = new byte[200];
        Arrays.fill(body, (byte) ' ');
        String header = AUTH.request("POST", BandwidthMessages.START_PATH, agentId, body, System.currentTimeMillis() / 1000).header();
        Socket s = new Socket();
        s.bind(new InetSocketAddress(from, 0));
        s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        s.getOutputStream().write(("POST " + BandwidthMessages.START_PATH + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n"
                + EndpointAuth.REQUEST_HEADER + ": " + header + "\r\nContent-Type: application/json\r\nContent-Length: "
                + body.length + "\r\n\r\n{\"client\":").getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
        return s;
    }

    /** The status the agent answered on {@code s} within {@code ms}; -1: none (the body is being waited for). */
    static int status(Socket s, int ms) throws IOException {
        s.setSoTimeout(ms);
        try {
            byte[] line = s.getInputStream().readNBytes(12);
            String status = new String(line, StandardCharsets.US_ASCII);
            return status.startsWith("HTTP/1.1 ") ? Integer.parseInt(status.substring(9, 12)) : -2;
        } catch (SocketTimeoutException e) {
            return -1;
        }
    }

    /** The status of GET /metrics on a new connection. */
    static int scrape(int port) throws IOException {
        try (RawHttp c = new RawHttp("127.0.0.1", port)) {
            c.write("GET /metrics?name[]=fabric_agent_ready HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
            return c.read().status();
        }
    }
}
