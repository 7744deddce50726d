package io.fabricd.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link AcceptGuard} on a real Vert.x server that closes nothing itself: every connection stays
 * open, so the caps at accept are all that decide.
 */
class AcceptGuardTest {
    private Vertx vertx;
    private final List<Socket> sockets = new ArrayList<>();
    /** No budget to speak of: not what these tests look at. */
    private final UnreadAnswers unread = new UnreadAnswers(Long.MAX_VALUE, new SimpleMeterRegistry().counter("shed"));

    @AfterEach
    void stop() throws IOException {
        for (Socket s : sockets) {
            s.close();
        }
        if (vertx != null) {
            vertx.close().await();
        }
    }

    private HttpServer serve(AcceptGuard guard) {
        vertx = Vertx.builder().withTransport(guard).build();
        return vertx.createHttpServer(new HttpServerOptions().setHttp2ClearTextEnabled(false))
                .requestHandler(req -> req.response().end("ok\n"))
                .listen(0, "127.0.0.1").await();
    }

    /** A GET over a new connection from {@code from}, kept open; true when it was answered. */
    private boolean answered(HttpServer server, String from) throws IOException {
        Socket s = new Socket();
        sockets.add(s);
        s.bind(new InetSocketAddress(from, 0));
        s.connect(new InetSocketAddress("127.0.0.1", server.actualPort()));
        s.setSoTimeout(5_000);
        try {
            s.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            byte[] status = s.getInputStream().readNBytes(15);
            return new String(status, StandardCharsets.US_ASCII).equals("HTTP/1.1 200 OK");
        } catch (IOException e) {
            return false; // reset at accept
        }
    }

    @Test
    void beyondTheAbsoluteCapOnlyKnownSourcesGetIn() throws Exception {
        KnownSources known = new KnownSources();
        known.answered("127.0.0.1");
        AcceptGuard guard = new AcceptGuard(6, 6, known, unread);
        HttpServer server = serve(guard);
        // six addresses, one connection each: all in
        for (int i = 1; i <= 6; i++) {
            assertThat(answered(server, "127.0.4." + i)).as("connection %d", i).isTrue();
        }
        assertThat(guard.open()).isEqualTo(6);
        // the seventh, from an address that holds none: closed at accept, whatever its source
        assertThat(answered(server, "127.0.4.7")).isFalse();
        assertThat(answered(server, "127.0.4.8")).isFalse();
        assertThat(guard.refused()).isEqualTo(2);
        // a known source (a scraper answered before) still gets in
        assertThat(answered(server, "127.0.0.1")).isTrue();
        assertThat(guard.refused()).isEqualTo(2);
    }

    @Test
    void beyondTheHeavySourceCapASourceHoldingTwoGetsNoThird() throws Exception {
        AcceptGuard guard = new AcceptGuard(2, 100, new KnownSources(), unread);
        HttpServer server = serve(guard);
        assertThat(answered(server, "127.0.5.1")).isTrue();
        assertThat(answered(server, "127.0.5.1")).isTrue();
        assertThat(answered(server, "127.0.5.1")).isFalse();
        // another address: its first and second still get in, its third not
        assertThat(answered(server, "127.0.5.2")).isTrue();
        assertThat(answered(server, "127.0.5.2")).isTrue();
        assertThat(answered(server, "127.0.5.2")).isFalse();
        assertThat(guard.refused()).isEqualTo(2);
        assertThat(guard.open()).isEqualTo(4);
    }
}
