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

    /** The peer "peer-1" as an agent answers. */
    private static final EndpointAuth PEER_1 = new EndpointAuth(KEY, () -> "peer-1");

    /** A 200 with {@code body}, signed by {@code agent} (null: unsigned) for the request of {@code nonce}. */
    private static void reply(HttpExchange x, EndpointAuth agent, String nonce, byte[] body) {
        try {
            if (agent != null) {
                x.getResponseHeaders().add(EndpointAuth.ANSWER_HEADER, agent.answerHeader(nonce, body));
            }
            x.sendResponseHeaders(200, body.length);
            x.getResponseBody().write(body);
        } catch (IOException e) {
            // the client gave up
        }
    }

    /**
     * Answers as an agent of id {@code id} does: 401 with that id to a request signed for another (or
     * none), else {@code body} signed by {@code signer} (the agent itself; another, for a rogue).
     */
    private static Consumer<HttpExchange> agent(String id, EndpointAuth signer, byte[] body) {
        return x -> {
            String h = x.getRequestHeaders().getFirst(EndpointAuth.REQUEST_HEADER);
            if (h != null && h.split(":").length == 6 && h.split(":")[3].equals(id)) {
                reply(x, signer, nonceOf(x), body);
                return;
            }
            try {
                x.getResponseHeaders().add(EndpointAuth.AGENT_ID_HEADER, id);
                x.sendResponseHeaders(401, -1);
            } catch (IOException e) {
                // gone
            }
        };
    }

    private static String nonceOf(HttpExchange x) {
        return EndpointAuth.nonce(x.getRequestHeaders().getFirst(EndpointAuth.REQUEST_HEADER));
    }

    @Test
    void aSignedAnswerIsReadWithTheNameOfTheAgentThatSignedIt() throws Exception {
        List<String> headers = new CopyOnWriteArrayList<>();
        Consumer<HttpExchange> peer1 = agent(PEER_1.agentId(), PEER_1, ENDPOINT.getBytes(StandardCharsets.UTF_8));
        String peer = serve(x -> {
            headers.add(x.getRequestHeaders().getFirst(EndpointAuth.REQUEST_HEADER));
            peer1.accept(x);
        });
        EndpointClient client = new EndpointClient(KEY, Duration.ofSeconds(5));
        Endpoint e = client.fetch(peer);
        assertThat(e.host()).isEqualTo("peer-1");
        // signed for no agent in particular while the peer's id is not known, then for the id its 401 said
        assertThat(headers).hasSize(2);
        assertThat(headers.get(0).split(":")[3]).isEqualTo(EndpointAuth.UNKNOWN_AGENT);
        assertThat(headers.get(1).split(":")[3]).isEqualTo(PEER_1.agentId());
        EndpointClient.Answered a = client.ask(peer, EndpointClient.PATH, null);
        assertThat(a.agent()).isEqualTo("peer-1");
        assertThat(new String(a.body(), StandardCharsets.UTF_8)).isEqualTo(ENDPOINT);
    }

    @Test
    void anAnswerOfAnotherAgentThanTheOneAskedIsRefused() throws Exception {
        // a rogue key holder that says peer-1's id and signs as peer-2: the answer is not the agent's the request was for
        EndpointAuth peer2 = new EndpointAuth(KEY, () -> "peer-2");
        String rogue = serve(agent(PEER_1.agentId(), peer2, ENDPOINT.getBytes(StandardCharsets.UTF_8)));
        assertThatThrownBy(() -> new EndpointClient(KEY, Duration.ofSeconds(5)).fetch(rogue))
                .hasMessageContaining("not signed with the probe key by the agent it was asked of");
        stop();
        // peer-2 itself, answering with peer-1's endpoint: an endpoint names the agent that gives it
        String other = serve(agent(peer2.agentId(), peer2, ENDPOINT.getBytes(StandardCharsets.UTF_8)));
        assertThatThrownBy(() -> new EndpointClient(KEY, Duration.ofSeconds(5)).fetch(other))
                .hasMessageContaining("sent the endpoint of peer-1 signed by agent peer-2");
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
                reply(x, agent, nonceOf(x), ENDPOINT.getBytes(StandardCharsets.UTF_8));
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
    void aRequestIsAPlainSocketsOwnThreadNeedsNoClientThreads() throws Exception {
        String peer = serve(agent(PEER_1.agentId(), PEER_1, ENDPOINT.getBytes(StandardCharsets.UTF_8)));
        EndpointClient client = new EndpointClient(KEY, Duration.ofSeconds(5));
        assertThat(client.fetch(peer).host()).isEqualTo("peer-1");
        // the JDK's HttpClient kept a selector thread per client (and loaded ~800 classes, TLS's among them, for plain HTTP)
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().startsWith("HttpClient"));
    }

    @Test
    @Timeout(30)
    void anInterruptEndsARequestAtOnce() throws Exception {
        String peer = serve(x -> {
            try {
                Thread.sleep(20_000); // never answers in time
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        java.util.concurrent.atomic.AtomicReference<Throwable> failed = new java.util.concurrent.atomic.AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                new EndpointClient(KEY, Duration.ofSeconds(20)).fetch(peer);
            } catch (IOException e) {
                failed.set(e);
            }
        });
        t.start();
        Thread.sleep(300);
        long t0 = System.nanoTime();
        t.interrupt();
        t.join(5_000);
        assertThat(t.isAlive()).isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(2));
        assertThat(failed.get()).hasMessage("interrupted");
    }

    @Test
    void aChunkedAnswerIsRefusedInWords() throws Exception {
        byte[] endpoint = ENDPOINT.getBytes(StandardCharsets.UTF_8);
        String peer = serve(x -> {
            String h = x.getRequestHeaders().getFirst(EndpointAuth.REQUEST_HEADER);
            try {
                if (!h.split(":")[3].equals(PEER_1.agentId())) {
                    x.getResponseHeaders().add(EndpointAuth.AGENT_ID_HEADER, PEER_1.agentId());
                    x.sendResponseHeaders(401, -1);
                    return;
                }
                x.getResponseHeaders().add(EndpointAuth.ANSWER_HEADER, PEER_1.answerHeader(nonceOf(x), endpoint));
                x.sendResponseHeaders(200, 0); // chunked
                for (byte b : endpoint) { // a chunk a byte
                    x.getResponseBody().write(b);
                    x.getResponseBody().flush();
                }
            } catch (IOException e) {
                // gone
            }
        });
        assertThatThrownBy(() -> new EndpointClient(KEY, Duration.ofSeconds(5)).fetch(peer))
                .hasMessage("cannot reach " + peer + ": answered in chunks, as no fabricd agent answers (a proxy in between?)");
    }

    @Test
    void anUnsignedOrMisSignedAnswerIsRefused() throws Exception {
        String unsigned = serve(agent(PEER_1.agentId(), null, ENDPOINT.getBytes(StandardCharsets.UTF_8)));
        assertThatThrownBy(() -> new EndpointClient(KEY, Duration.ofSeconds(5)).fetch(unsigned))
                .hasMessageContaining("not signed with the probe key");
        stop();
        // peer-1's signed answer to another request (a captured one), given to this one
        String otherNonce = "00".repeat(16);
        Consumer<HttpExchange> refuse = agent(PEER_1.agentId(), null, new byte[0]);
        String replayed = serve(x -> {
            String h = x.getRequestHeaders().getFirst(EndpointAuth.REQUEST_HEADER);
            if (h.split(":")[3].equals(PEER_1.agentId())) {
                reply(x, PEER_1, otherNonce, ENDPOINT.getBytes(StandardCharsets.UTF_8));
            } else {
                refuse.accept(x);
            }
        });
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
