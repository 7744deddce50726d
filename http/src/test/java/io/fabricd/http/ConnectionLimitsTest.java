package io.fabricd.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link ConnectionLimits} on a real Vert.x server whose handler holds requests until told. */
class ConnectionLimitsTest {
    /** The agent's default request head: 16 KiB of headers and 8 KiB of request line. */
    static final int HEAD = 24 << 10;

    /** Meters named after their kind ("http.connections.shed"). */
    static HttpMeters plain(MeterRegistry registry) {
        return new HttpMeters(registry, k -> "http." + k.name().toLowerCase(Locale.ROOT).replace('_', '.'), HttpMeters.Kind::name);
    }

    private Vertx vertx;
    private HttpServer server;
    private ConnectionLimits limits;
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    /** Requests the handler holds unanswered. */
    private final ConcurrentLinkedQueue<HttpServerRequest> held = new ConcurrentLinkedQueue<>();

    @BeforeEach
    void start() {
        vertx = Vertx.vertx();
        limits = new ConnectionLimits(4, 2, HEAD, 0, plain(meters));
        // as the agent's: HTTP/1.1 only (with h2c on, Vert.x makes the connection, and calls the
        // connection handler, only once the first request shows which protocol it is)
        server = vertx.createHttpServer(new HttpServerOptions().setHttp2ClearTextEnabled(false))
                .connectionHandler(limits.connectionHandler())
                .requestHandler(limits.limit(req -> {
                    if (req.path().equals("/hold")) {
                        held.add(req);
                    } else if (req.path().equals("/nope")) {
                        req.response().setStatusCode(404).end("not found\n");
                    } else {
                        req.response().end("ok\n");
                    }
                }, ConnectionLimitsTest::health))
                .listen(0, "127.0.0.1").await();
    }

    /** The agent's health routes: outside the request budget. */
    private static boolean health(HttpServerRequest req) {
        return req.path().equals("/healthz") || req.path().equals("/readyz") || req.path().equals("/healthz/");
    }

    @AfterEach
    void stop() {
        vertx.close().await();
    }

    private Socket connect() throws IOException {
        return connect("127.0.0.1");
    }

    private Socket connect(String from) throws IOException {
        Socket s = new Socket();
        s.bind(new InetSocketAddress(from, 0));
        s.connect(new InetSocketAddress("127.0.0.1", server.actualPort()));
        s.setSoTimeout(5_000);
        return s;
    }

    private static void send(Socket s, String path) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write(("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    private static String statusLine(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0 && c != '\r') {
            sb.append((char) c);
        }
        return sb.toString();
    }

    private static boolean closedByPeer(Socket s) throws IOException {
        s.setSoTimeout(300);
        try {
            return s.getInputStream().read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        } finally {
            s.setSoTimeout(5_000);
        }
    }

    private void awaitHeld(int n) throws InterruptedException {
        for (int i = 0; i < 100 && held.size() < n; i++) {
            Thread.sleep(20);
        }
        assertThat(held).hasSize(n);
    }

    @Test
    void beyondMaxRequestsA503UntilOneEnds() throws Exception {
        List<Socket> s = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                s.add(connect());
            }
            send(s.get(0), "/hold");
            send(s.get(1), "/hold");
            awaitHeld(2);
            send(s.get(2), "/");
            assertThat(statusLine(s.get(2))).isEqualTo("HTTP/1.1 503 Service Unavailable");
            assertThat(meters.get("http.requests.rejected").counter().count()).isEqualTo(1.0);
            // one held request answered: room again
            HttpServerRequest first = held.poll();
            vertx.runOnContext(v -> first.response().end("done\n"));
            assertThat(statusLine(s.get(0))).isEqualTo("HTTP/1.1 200 OK");
            Thread.sleep(100);
            Socket again = connect();
            s.add(again);
            send(again, "/");
            assertThat(statusLine(again)).isEqualTo("HTTP/1.1 200 OK");
        } finally {
            for (Socket x : s) {
                x.close();
            }
        }
    }

    @Test
    @SuppressWarnings("try") // closed inside the block on purpose: the close is what is tested
    void aClosedConnectionTakesItsRequestsInFlightWithIt() throws Exception {
        try (Socket a = connect(); Socket b = connect()) {
            send(a, "/hold");
            send(b, "/hold");
            awaitHeld(2);
            a.close();
            b.close();
            for (int i = 0; i < 100 && limits.inFlight() > 0; i++) {
                Thread.sleep(20);
            }
            assertThat(limits.inFlight()).isZero();
        }
        try (Socket c = connect()) {
            send(c, "/");
            assertThat(statusLine(c)).isEqualTo("HTTP/1.1 200 OK");
        }
    }

    @Test
    void theSourceHoldingTheMostLosesItsOldestEvenWhenAnotherHoldsAnOlderUnreadOne() throws Exception {
        List<Socket> s = new ArrayList<>();
        try {
            Socket scraper = connect("127.0.0.1"); // its request not read yet, as under a flood
            s.add(scraper);
            for (int i = 0; i < 6; i++) {
                s.add(connect("127.0.2." + (1 + i % 2))); // a flood from two addresses
                Thread.sleep(50);
            }
            assertThat(closedByPeer(scraper)).isFalse();
            assertThat(limits.openConnections()).isEqualTo(4);
            send(scraper, "/");
            assertThat(statusLine(scraper)).isEqualTo("HTTP/1.1 200 OK");
            // three had to go: the flood's oldest, whatever their address
            List<Boolean> closed = new ArrayList<>();
            for (Socket x : s.subList(1, 7)) {
                closed.add(closedByPeer(x));
            }
            assertThat(closed).containsExactly(true, true, true, false, false, false);
        } finally {
            for (Socket x : s) {
                x.close();
            }
        }
    }

    @Test
    void theOldestNeverUsedConnectionGoesFirstThenTheOldestIdleAndBusyOnesStay() throws Exception {
        List<Socket> s = new ArrayList<>();
        try {
            Socket busy = connect(); // a request in flight: never closed for room
            s.add(busy);
            send(busy, "/hold");
            awaitHeld(1);
            Socket scraper = connect(); // answered once, kept alive
            s.add(scraper);
            send(scraper, "/");
            assertThat(statusLine(scraper)).isEqualTo("HTTP/1.1 200 OK");
            Socket idle1 = connect();
            Socket idle2 = connect();
            s.add(idle1);
            s.add(idle2);
            Thread.sleep(100);
            assertThat(limits.openConnections()).isEqualTo(4);
            Socket fifth = connect();
            s.add(fifth);
            Thread.sleep(200);
            // the oldest that never sent a request, not the kept-alive scraper
            assertThat(closedByPeer(idle1)).isTrue();
            assertThat(closedByPeer(idle2)).isFalse();
            Socket sixth = connect();
            s.add(sixth);
            Thread.sleep(200);
            assertThat(closedByPeer(idle2)).isTrue();
            Socket seventh = connect();
            s.add(seventh);
            Thread.sleep(200);
            assertThat(closedByPeer(fifth)).isTrue();
            assertThat(closedByPeer(scraper)).isFalse();
            assertThat(closedByPeer(busy)).isFalse();
            assertThat(limits.openConnections()).isEqualTo(4);
            assertThat(meters.get("http.connections.shed").counter().count()).isEqualTo(3.0);
            HttpServerRequest r = held.poll();
            vertx.runOnContext(v -> r.response().end("done\n"));
            assertThat(statusLine(busy)).isEqualTo("HTTP/1.1 200 OK");
        } finally {
            for (Socket x : s) {
                x.close();
            }
        }
    }

    @Test
    void healthChecksAreAnsweredWhileEveryRequestSlotIsHeld() throws Exception {
        List<Socket> s = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                Socket h = connect();
                s.add(h);
                send(h, "/hold");
            }
            awaitHeld(2);
            for (String path : List.of("/healthz", "/readyz", "/healthz/")) {
                Socket probe = connect();
                s.add(probe);
                send(probe, path);
                assertThat(statusLine(probe)).as(path).isEqualTo("HTTP/1.1 200 OK");
            }
            Socket other = connect();
            s.add(other);
            send(other, "/metrics");
            assertThat(statusLine(other)).isEqualTo("HTTP/1.1 503 Service Unavailable");
            assertThat(limits.inFlight()).isEqualTo(2);
        } finally {
            for (Socket x : s) {
                x.close();
            }
        }
    }

    @Test
    void connectionsThatKeepSendingRefusedRequestsGoBeforeAKnownClientsNewAndKeptAliveOnes() throws Exception {
        List<Socket> s = new ArrayList<>();
        try {
            Socket scraper = connect("127.0.0.1"); // answered: a known source, its connection kept alive
            s.add(scraper);
            send(scraper, "/");
            assertThat(statusLine(scraper)).isEqualTo("HTTP/1.1 200 OK");
            drain(scraper);
            List<Socket> flood = new ArrayList<>();
            for (int i = 0; i < 3; i++) { // from three addresses, each refused, and refused again after the scrape
                Socket f = connect("127.0.4." + (1 + i));
                flood.add(f);
                send(f, "/nope");
                assertThat(statusLine(f)).isEqualTo("HTTP/1.1 404 Not Found");
                drain(f);
            }
            s.addAll(flood);
            for (Socket f : flood) {
                send(f, "/nope");
                assertThat(statusLine(f)).isEqualTo("HTTP/1.1 404 Not Found");
                drain(f);
            }
            assertThat(limits.openConnections()).isEqualTo(4);
            // two new connections of the known client at the budget: refused connections make room for both
            Socket next = connect("127.0.0.1");
            s.add(next);
            Thread.sleep(200);
            Socket another = connect("127.0.0.1");
            s.add(another);
            Thread.sleep(200);
            assertThat(closedByPeer(scraper)).as("the kept-alive scraper").isFalse();
            assertThat(closedByPeer(next)).as("the known client's new connection").isFalse();
            assertThat(List.of(closedByPeer(flood.get(0)), closedByPeer(flood.get(1)), closedByPeer(flood.get(2))))
                    .containsExactly(true, true, false);
            for (Socket k : List.of(scraper, next, another)) {
                send(k, "/");
                assertThat(statusLine(k)).isEqualTo("HTTP/1.1 200 OK");
            }
        } finally {
            for (Socket x : s) {
                x.close();
            }
        }
    }

    /** Reads the rest of an answer (its headers and short body) so that the next status line starts clean. */
    private static void drain(Socket s) throws IOException, InterruptedException {
        Thread.sleep(50);
        InputStream in = s.getInputStream();
        while (in.available() > 0) {
            in.read();
        }
    }

    @Test
    void aKnownSourcesUnreadConnectionOutlivesAFloodFromManyAddresses() throws Exception {
        List<Socket> s = new ArrayList<>();
        try (Socket first = connect("127.0.0.1")) {
            send(first, "/"); // answered: 127.0.0.1 is a known source from now on
            assertThat(statusLine(first)).isEqualTo("HTTP/1.1 200 OK");
        }
        try {
            Socket scraper = connect("127.0.0.1"); // its request not read yet, as under a flood
            s.add(scraper);
            for (int i = 0; i < 8; i++) {
                s.add(connect("127.0.3." + (1 + i))); // one connection from each of eight addresses
                Thread.sleep(50);
            }
            assertThat(closedByPeer(scraper)).isFalse();
            send(scraper, "/");
            assertThat(statusLine(scraper)).isEqualTo("HTTP/1.1 200 OK");
            // the flood's oldest went
            assertThat(closedByPeer(s.get(1))).isTrue();
            assertThat(closedByPeer(s.get(8))).isFalse();
            assertThat(limits.openConnections()).isEqualTo(4);
        } finally {
            for (Socket x : s) {
                x.close();
            }
        }
    }

    @Test
    void aConnectionLimitOverTheHeapsIsLoweredAndNothingOverflows() throws Exception {
        long heap = Runtime.getRuntime().maxMemory();
        int allowed = HeapBudget.maxConnections(heap, 24 << 10);
        List<String> warnings = new ArrayList<>();
        Logger log = Logger.getLogger(ConnectionLimits.class.getName());
        Handler h = new Handler() {
            @Override
            public void publish(LogRecord r) {
                warnings.add(r.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        log.addHandler(h);
        try {
            assertThat(new ConnectionLimits(0, 2, HEAD, 0, plain(new SimpleMeterRegistry())).maxConnections()).isEqualTo(allowed);
            assertThat(warnings).isEmpty();
            assertThat(new ConnectionLimits(600_000_000, 2, HEAD, 0, plain(new SimpleMeterRegistry())).maxConnections()).isEqualTo(allowed);
            assertThat(warnings).singleElement().asString().startsWith("http.max_connections 600000000 is more than a ")
                    .contains(": " + allowed + " (raise -Xmx");
        } finally {
            log.removeHandler(h);
        }
        assertThat(new ConnectionLimits(Integer.MAX_VALUE, 2, Integer.MAX_VALUE, 0, plain(new SimpleMeterRegistry())).maxConnections()).isEqualTo(4);
        // 600 000 000 x 4 was negative: every address's third connection was closed at accept
        ConnectionLimits big = new ConnectionLimits(600_000_000, 8, HEAD, 0, plain(new SimpleMeterRegistry()));
        Vertx guarded = Vertx.builder().withTransport(big.transport()).build();
        try {
            HttpServer srv = guarded.createHttpServer(new HttpServerOptions().setHttp2ClearTextEnabled(false))
                    .connectionHandler(big.connectionHandler())
                    .requestHandler(big.limit(req -> req.response().end("ok\n"), ConnectionLimitsTest::health))
                    .listen(0, "127.0.0.1").await();
            List<Socket> s = new ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) {
                    Socket x = new Socket("127.0.0.1", srv.actualPort());
                    x.setSoTimeout(5_000);
                    s.add(x);
                }
                for (Socket x : s) {
                    send(x, "/");
                    assertThat(statusLine(x)).isEqualTo("HTTP/1.1 200 OK");
                }
            } finally {
                for (Socket x : s) {
                    x.close();
                }
            }
        } finally {
            guarded.close().await();
        }
    }

    @Test
    void theHeapBudgetsArithmetic() {
        long mib96 = 96L << 20;
        assertThat(HeapBudget.connectionBytes(24 << 10)).isEqualTo(80 << 10);
        assertThat(HeapBudget.maxConnections(mib96, 24 << 10)).isEqualTo(460);
        assertThat(HeapBudget.acceptCap(mib96, 460)).isEqualTo(460 + 768);
        assertThat(HeapBudget.heavySourceCap(460, 1228)).isEqualTo(844);
        // no overflow at the extremes
        assertThat(HeapBudget.maxConnections(Long.MAX_VALUE, 0)).isEqualTo(HeapBudget.MAX_CONNECTIONS);
        assertThat(HeapBudget.maxConnections(1, Integer.MAX_VALUE)).isEqualTo(4);
        assertThat(HeapBudget.acceptCap(Long.MAX_VALUE, Integer.MAX_VALUE)).isEqualTo(Integer.MAX_VALUE - HeapBudget.MIN_ACCEPT_ROOM);
        assertThat(HeapBudget.acceptCap(0, 4)).isEqualTo(4 + HeapBudget.MIN_ACCEPT_ROOM);
        int cap = HeapBudget.acceptCap(Long.MAX_VALUE, Integer.MAX_VALUE);
        assertThat(HeapBudget.heavySourceCap(Integer.MAX_VALUE, cap)).isBetween(cap, Integer.MAX_VALUE);
    }
}
