package io.fabricd.probes.peers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fabricd.probes.ProbeKey;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A rogue peer's answers: endless, huge, trickling, unsigned or signed for another request — refused, bounded in time and memory. */
class EndpointClientTest {
    private static final ProbeKey KEY = new ProbeKey("an-endpoint-test-key-of-32-chars".getBytes(StandardCharsets.UTF_8));
    private static final String ENDPOINT = "{\"host\":\"peer-1\",\"udp_port\":9531,\"labels\":{}}";
    private HttpServer server;

    private String serve(Consumer<HttpExchange> answer) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext(EndpointClient.PATH, x -> {
            try {
                answer.accept(x);
            } finally {
                x.close();
            }
        });
        server.start();
        return "127.0.0.1:" + server.getAddress().getPort();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    private static void reply(HttpExchange x, String signWith, byte[] body) {
        try {
            if (signWith != null) {
                x.getResponseHeaders().add(EndpointAuth.ANSWER_HEADER, new EndpointAuth(KEY).answerHeader(signWith, body));
            }
            x.sendResponseHeaders(200, body.length);
            x.getResponseBody().write(body);
        } catch (IOException e) {
            // the client gave up
        }
    }

    private static String nonceOf(HttpExchange x) {
        return EndpointAuth.nonce(x.getRequestHeaders().getFirst(EndpointAuth.REQUEST_HEADER));
    }

    @Test
    void aSignedAnswerIsRead() throws Exception {
        AtomicReference<String> header = new AtomicReference<>();
        String peer = serve(x -> {
            header.set(x.getRequestHeaders().getFirst(EndpointAuth.REQUEST_HEADER));
            reply(x, nonceOf(x), ENDPOINT.getBytes(StandardCharsets.UTF_8));
        });
        Endpoint e = new EndpointClient(KEY, Duration.ofSeconds(5)).fetch(peer);
        assertThat(e.host()).isEqualTo("peer-1");
        // signed for no agent in particular while the peer's id is not known (a real agent says 401 and its id)
        assertThat(header.get().split(":")[3]).isEqualTo(EndpointAuth.UNKNOWN_AGENT);
    }

    @Test
    void thePeersIdIsLearnedFromItsRefusalOnceAndKept() throws Exception {
        EndpointAuth agent = new EndpointAuth(KEY, () -> "peer-1");
        List<EndpointAuth.Verdict> seen = new CopyOnWriteArrayList<>();
        String peer = serve(x -> {
            String h = x.getRequestHeaders().getFirst(EndpointAuth.REQUEST_HEADER);
            EndpointAuth.Verdict v = agent.check(h, "GET", EndpointClient.PATH, System.currentTimeMillis() / 1000);
            seen.add(v);
            if (v == EndpointAuth.Verdict.OK) {
                reply(x, nonceOf(x), ENDPOINT.getBytes(StandardCharsets.UTF_8));
                return;
            }
            try {
                if (v == EndpointAuth.Verdict.WRONG_AGENT) {
                    x.getResponseHeaders().add(EndpointAuth.AGENT_ID_HEADER, agent.agentId());
                }
                x.sendResponseHeaders(401, -1);
            } catch (IOException e) {
                // gone
            }
        });
        EndpointClient client = new EndpointClient(KEY, Duration.ofSeconds(5));
        assertThat(client.fetch(peer).host()).isEqualTo("peer-1");
        assertThat(seen).containsExactly(EndpointAuth.Verdict.WRONG_AGENT, EndpointAuth.Verdict.OK);
        assertThat(client.fetch(peer).host()).isEqualTo("peer-1");
        assertThat(seen).hasSize(3).endsWith(EndpointAuth.Verdict.OK);
        // a client with another key gets no id (its tag is bad) and does not ask again
        seen.clear();
        EndpointClient other = new EndpointClient(new ProbeKey("another-endpoint-key-of-32-chars".getBytes(StandardCharsets.UTF_8)),
                Duration.ofSeconds(5));
        assertThatThrownBy(() -> other.fetch(peer)).hasMessageContaining("refused the probe key (401)");
        assertThat(seen).containsExactly(EndpointAuth.Verdict.BAD_TAG);
    }

    @Test
    void anUnsignedOrMisSignedAnswerIsRefused() throws Exception {
        String unsigned = serve(x -> reply(x, null, ENDPOINT.getBytes(StandardCharsets.UTF_8)));
        assertThatThrownBy(() -> new EndpointClient(KEY, Duration.ofSeconds(5)).fetch(unsigned))
                .hasMessageContaining("not signed with the probe key");
        stop();
        String replayed = serve(x -> reply(x, "00".repeat(16), ENDPOINT.getBytes(StandardCharsets.UTF_8)));
        assertThatThrownBy(() -> new EndpointClient(KEY, Duration.ofSeconds(5)).fetch(replayed))
                .hasMessageContaining("not signed with the probe key");
    }

    @Test
    @Timeout(30)
    void anEndlessAnswerIsCutAtItsBound() throws Exception {
        String peer = serve(x -> {
            try {
                x.sendResponseHeaders(200, 0); // chunked, never ends
                OutputStream out = x.getResponseBody();
                byte[] junk = new byte[64 * 1024];
                for (int i = 0; i < 100_000; i++) { // 6 GiB if nobody stopped it
                    out.write(junk);
                }
            } catch (IOException e) {
                // the client hung up: what it should do
            }
        });
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> new EndpointClient(KEY, Duration.ofSeconds(10)).fetch(peer))
                .hasMessageContaining("answer larger than " + EndpointClient.MAX_ANSWER_BYTES + " bytes");
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
    }

    @Test
    @Timeout(30)
    void aTricklingAnswerEndsAtTheTimeout() throws Exception {
        String peer = serve(x -> {
            try {
                x.sendResponseHeaders(200, 0);
                OutputStream out = x.getResponseBody();
                for (int i = 0; i < 100; i++) { // a byte every 100 ms: each read is quick, the whole never ends in time
                    out.write('{');
                    out.flush();
                    Thread.sleep(100);
                }
            } catch (IOException | InterruptedException e) {
                // the client hung up
            }
        });
        assertThatThrownBy(() -> new EndpointClient(KEY, Duration.ofMillis(1500)).fetch(peer))
                .hasMessageContaining("no complete answer within 1500 ms");
    }

    @Test
    void errorsArePrintableAndShort() throws Exception {
        String peer = serve(x -> {
            try {
                byte[] body = ("\u001b[31mred\u0007" + "x".repeat(5000)).getBytes(StandardCharsets.UTF_8);
                x.sendResponseHeaders(500, body.length);
                x.getResponseBody().write(body);
            } catch (IOException e) {
                // gone
            }
        });
        assertThatThrownBy(() -> new EndpointClient(KEY, Duration.ofSeconds(5)).fetch(peer))
                .hasMessageStartingWith(peer + " answered 500: ?[31mred?xxx")
                .hasMessageNotContaining("\u001b")
                .satisfies(e -> assertThat(e.getMessage().length()).isLessThan(300));
        assertThatThrownBy(() -> new EndpointClient(KEY, Duration.ofSeconds(5)).fetch("no-port"))
                .hasMessageContaining("is not HOST:PORT");
    }

    @Test
    void aNameThatDoesNotResolveIsSaidSoNotAsARefusedConnection() {
        // the HTTP client reports it as a ConnectException whose cause is an UnresolvedAddressException
        assertThatThrownBy(() -> new EndpointClient(KEY, Duration.ofSeconds(5)).fetch("no-such-host.invalid:9530"))
                .isInstanceOf(IOException.class)
                .hasMessage("cannot reach no-such-host.invalid:9530: cannot resolve host no-such-host.invalid");
    }
}
