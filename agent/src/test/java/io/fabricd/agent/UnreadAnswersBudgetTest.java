package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.agent.config.AgentConfig;
import io.fabricd.agent.config.ListenAddress;
import io.fabricd.collectors.Fixtures;
import io.fabricd.testing.PromText;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A real agent whose clients ask for the snapshot on many connections, each with a small receive
 * buffer, and never read the answers: once a request's answer is written its request slot is
 * free, but the answer stays in the agent's memory. With a budget of unread answers lowered to a
 * few answers, what the agent holds settles within the budget plus one answer, the connections
 * holding the rest are shed, and a client that reads still gets the snapshot, /metrics and
 * /healthz.
 *
 * <p>Each client asks {@link #PIPELINED} times in one go: on loopback (64 KiB segments) the kernel
 * takes ~2.5 MiB of answers per connection before the agent has to hold any (over a network, with
 * 1.5 KiB segments, a few tens of KiB: one request per connection is enough there). The agent
 * then holds one answer per connection, and takes the next request once the client reads.
 */
class UnreadAnswersBudgetTest {
    private static final int CLIENTS = 40;
    private static final int PIPELINED = 16;

    @Test
    void connectionsThatNeverReadTheirAnswersAreShedToStayWithinTheBudget() throws Exception {
        // idle_timeout far beyond the test: only the budget closes the connections
        AgentConfig c = TestConfigs.yaml("collection: {interval: 1h}", "http: {max_requests: 200, idle_timeout: 10m}");
        long budget = 2 << 20;
        List<Socket> hostile = new ArrayList<>();
        try (Agent a = new Agent(Fixtures.open("host-f-big"), c, new ListenAddress("127.0.0.1", 0)).unreadBudget(budget).start()) {
            assertThat(a.awaitReady(Duration.ofSeconds(60))).isTrue();
            int port = a.port();
            HttpResponse<String> first = Http.get(port, "/api/v1/snapshot");
            assertThat(first.statusCode()).isEqualTo(200);
            long body = first.body().getBytes(StandardCharsets.UTF_8).length;
            assertThat(body).as("a few answers fill the budget").isBetween(budget / 8, budget / 2);
            byte[] request = "GET /api/v1/snapshot HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".repeat(PIPELINED)
                    .getBytes(StandardCharsets.US_ASCII);
            for (int i = 0; i < CLIENTS; i++) {
                Socket s = new Socket();
                s.setReceiveBufferSize(4096); // before connect: the window the agent sees stays small
                s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
                hostile.add(s);
                s.getOutputStream().write(request);
                s.getOutputStream().flush();
            }
            // every request answered: the first bytes of each answer reached its client
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (answered(hostile) < CLIENTS && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(answered(hostile)).as("hostile requests answered").isEqualTo(CLIENTS);
            // the later answers of each connection written (or their connection shed): within the
            // budget and one answer, for a second (ten looks in a row); the agent holds several
            // times the budget while the answers are written, and ever after without the bound
            long limit = budget + body;
            deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            long unread = a.connectionLimits().unreadBytes();
            long most = unread;
            for (int within = 0; within < 10 && System.nanoTime() < deadline; ) {
                Thread.sleep(100);
                unread = a.connectionLimits().unreadBytes();
                most = Math.max(most, unread);
                within = unread <= limit ? within + 1 : 0;
            }
            System.out.printf("unread answers: at most %d bytes seen, %d at the end; budget %d, answers of %d bytes%n", most, unread,
                    budget, body);
            assertThat(unread).as("bytes of answers unread, %d answers of %d bytes asked, budget %d", CLIENTS * PIPELINED, body,
                    budget).isLessThanOrEqualTo(limit);
            // between two looks: what was written since the last (a quarter of the budget), and one answer
            assertThat(most).as("bytes of answers unread at most, while the answers are written").isLessThanOrEqualTo(limit + budget / 4);
            assertThat(shed(port)).as("connections shed").isGreaterThanOrEqualTo(CLIENTS / 2.0);
            // a client that reads gets its answers, the large one included
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> snapshot = Http.get(port, "/api/v1/snapshot");
                assertThat(snapshot.statusCode()).isEqualTo(200);
                assertThat(snapshot.body()).hasSize(first.body().length());
                assertThat(Http.get(port, "/metrics").statusCode()).isEqualTo(200);
                assertThat(Http.get(port, "/healthz").statusCode()).isEqualTo(200);
            }
            assertThat(a.connectionLimits().unreadBytes()).isLessThanOrEqualTo(limit);
        } finally {
            for (Socket s : hostile) {
                s.close();
            }
        }
    }

    /** How many of the sockets have received something (or were closed on this side). */
    private static int answered(List<Socket> sockets) {
        int n = 0;
        for (Socket s : sockets) {
            try {
                if (s.getInputStream().available() > 0) {
                    n++;
                }
            } catch (IOException e) {
                n++; // reset by the agent
            }
        }
        return n;
    }

    private static double shed(int port) throws Exception {
        HttpResponse<String> r = Http.get(port, "/metrics?name[]=fabric_agent_http_connections_shed_total");
        assertThat(r.statusCode()).isEqualTo(200);
        return PromText.parse(r.body()).getOrDefault("fabric_agent_http_connections_shed_total", 0.0);
    }
}
