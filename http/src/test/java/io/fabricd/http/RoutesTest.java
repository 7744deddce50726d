package io.fabricd.http;

import static org.assertj.core.api.Assertions.assertThat;

import at.favre.lib.crypto.bcrypt.BCrypt;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Routes} on a real Vert.x server: each route's methods, access and budget, as the
 * requests of a client on a socket meet them.
 */
class RoutesTest {
    private static final String USER = "Basic " + Base64.getEncoder().encodeToString("alice:pw".getBytes(StandardCharsets.UTF_8));
    private Vertx vertx;
    private HttpServer server;

    /** Signatures of this test: the header {@code X-Sig: ok} passes, and the body must be {@code signed}. */
    private static final class TestSignatures implements Signatures {
        @Override
        public boolean admit(HttpServerRequest req, String what) {
            return pass(req, "ok".equals(req.getHeader("X-Sig")), what);
        }

        @Override
        public boolean body(HttpServerRequest req, byte[] body, String what) {
            return pass(req, body == null || "signed".equals(new String(body, StandardCharsets.UTF_8)), what);
        }

        @Override
        public void sign(HttpServerRequest req, byte[] body) {
            req.response().putHeader("X-Answer", "signed " + body.length);
        }

        private static boolean pass(HttpServerRequest req, boolean ok, String what) {
            if (!ok) {
                LingeringClose.text(req, 401, what + " need a signature\n");
            }
            return ok;
        }
    }

    @BeforeEach
    void start() {
        vertx = Vertx.vertx();
        HttpMeters meters = ConnectionLimitsTest.plain(new SimpleMeterRegistry());
        ConnectionLimits limits = new ConnectionLimits(16, 1, ConnectionLimitsTest.HEAD, 0, meters);
        TestSignatures signatures = new TestSignatures();
        List<Route> routes = List.of(
                Route.get("/a", Route.Access.AUTHENTICATED, (req, b) -> req.response().end("a\n")),
                Route.get("/held", Route.Access.AUTHENTICATED, (req, b) -> { }), // holds the one request slot
                Route.get("/h", Route.Access.OPEN, (req, b) -> req.response().end("h\n")).outsideBudget(),
                Route.signedPost("/s", "test requests", (req, body) -> SignedPost.answer(req, signatures, 200, body, 0)));
        String hash = new String(BCrypt.withDefaults().hash(4, "pw".toCharArray()), StandardCharsets.UTF_8);
        server = vertx.createHttpServer(new HttpServerOptions().setHttp2ClearTextEnabled(false))
                .connectionHandler(limits.connectionHandler())
                .requestHandler(new Routes(routes, (req, b) -> LingeringClose.text(req, 404, "no " + req.path() + "\n"))
                        .handler(vertx, limits, signatures, Map.of("alice", hash), Map.of("X-Frame-Options", "deny"), meters))
                .listen(0, "127.0.0.1").await();
    }

    @AfterEach
    void stop() {
        vertx.close().await();
    }

    @Test
    void methodsPathsAndPasswords() throws IOException {
        assertThat(ask("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")).startsWith("HTTP/1.1 401").contains("WWW-Authenticate", "X-Frame-Options");
        assertThat(ask("GET /a/ HTTP/1.1\r\nHost: x\r\nAuthorization: " + USER + "\r\n\r\n")).startsWith("HTTP/1.1 200").endsWith("a\n");
        assertThat(ask("POST /a HTTP/1.1\r\nHost: x\r\nAuthorization: " + USER + "\r\nContent-Length: 0\r\n\r\n"))
                .startsWith("HTTP/1.1 405").contains("allow: GET, HEAD").endsWith("method not allowed: POST (GET or HEAD)\n");
        assertThat(ask("GET /b HTTP/1.1\r\nHost: x\r\nAuthorization: " + USER + "\r\n\r\n")).startsWith("HTTP/1.1 404").endsWith("no /b\n");
        // an unknown path needs the password as the routes that need one do
        assertThat(ask("GET /b HTTP/1.1\r\nHost: x\r\n\r\n")).startsWith("HTTP/1.1 401");
        assertThat(ask("GET /h HTTP/1.1\r\nHost: x\r\n\r\n")).startsWith("HTTP/1.1 200").endsWith("h\n");
        // a route that takes a body matches its path exactly
        assertThat(ask("POST /s/ HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")).startsWith("HTTP/1.1 401").contains("WWW-Authenticate");
    }

    @Test
    void aSignedRouteIsRefusedBeforeItsBodyIsReadAndAnsweredSignedAfter() throws IOException {
        // no password asked; the header refused with the body still on its way: the answer comes without it
        assertThat(ask("POST /s HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\n\r\n")).startsWith("HTTP/1.1 401")
                .doesNotContain("WWW-Authenticate").endsWith("test requests need a signature\n");
        assertThat(ask("POST /s HTTP/1.1\r\nHost: x\r\nX-Sig: ok\r\nContent-Length: 5\r\n\r\nforge")).startsWith("HTTP/1.1 401");
        assertThat(ask("POST /s HTTP/1.1\r\nHost: x\r\nX-Sig: ok\r\nContent-Length: 6\r\n\r\nsigned")).startsWith("HTTP/1.1 200")
                .contains("X-Answer: signed 6").endsWith("signed");
        assertThat(ask("POST /s HTTP/1.1\r\nHost: x\r\nX-Sig: ok\r\nContent-Length: 70000\r\n\r\n")).startsWith("HTTP/1.1 413");
    }

    @Test
    void aRouteOutsideTheBudgetIsAnsweredWhileTheBudgetIsHeld() throws IOException {
        try (Socket held = new Socket("127.0.0.1", server.actualPort())) {
            held.getOutputStream().write(("GET /held HTTP/1.1\r\nHost: x\r\nAuthorization: " + USER + "\r\n\r\n").getBytes(StandardCharsets.UTF_8));
            held.getOutputStream().flush();
            long deadline = System.nanoTime() + 10_000_000_000L;
            String over;
            do { // until the held request has its slot (its bcrypt done: 429 while it runs)
                over = ask("GET /a HTTP/1.1\r\nHost: x\r\nAuthorization: " + USER + "\r\n\r\n");
            } while (!over.startsWith("HTTP/1.1 503") && System.nanoTime() < deadline);
            assertThat(over).startsWith("HTTP/1.1 503");
            assertThat(ask("GET /h HTTP/1.1\r\nHost: x\r\n\r\n")).startsWith("HTTP/1.1 200");
        }
    }

    /** The whole answer to {@code request} on a connection of its own, closed after it. */
    private String ask(String request) throws IOException {
        try (Socket s = new Socket("127.0.0.1", server.actualPort())) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(request.replaceFirst("\r\n\r\n", "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
