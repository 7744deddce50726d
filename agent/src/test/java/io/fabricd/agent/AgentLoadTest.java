package io.fabricd.agent;

import static io.fabricd.testing.PromText.s;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.agent.config.AgentConfig;
import io.fabricd.agent.config.ListenAddress;
import io.fabricd.collectors.Fixtures;
import io.fabricd.testing.PromText;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Load and bad clients: many concurrent scrapes cost no extra collection, and idle
 * sockets, slowloris clients and oversized requests neither starve scrapes nor stay open. Latencies
 * are printed for the record (docs/benchmarks.md), never asserted.
 */
class AgentLoadTest {
    static Agent start(AgentConfig c) {
        return new Agent(Fixtures.open("host-a-ib"), c, new ListenAddress("127.0.0.1", 0)).start();
    }

    static AgentConfig config() {
        return TestConfigs.yaml("collection: {interval: 1h}");
    }

    /**
     * Fifty scrapers at once, twenty scrapes each, with the default limits: all answered 200 and no
     * extra collection. Half keep their connection, half open one per scrape (bench/scrape-flood.sh
     * measures the same against node_exporter): http.max_requests (64) is above the fifty.
     */
    @Test
    void thousandScrapesFromFiftyClientsAllAnsweredWithoutExtraCollections() throws Exception {
        try (Agent a = start(config())) {
            assertThat(a.awaitReady(Duration.ofSeconds(20))).isTrue();
            ExecutorService pool = Executors.newFixedThreadPool(50);
            List<Future<long[]>> clients = new ArrayList<>();
            for (int c = 0; c < 50; c++) {
                boolean keepAlive = c % 2 == 0;
                clients.add(pool.submit(() -> {
                    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build(); // keep-alive, its own
                    long[] nanos = new long[20];
                    for (int i = 0; i < 20; i++) {
                        long t0 = System.nanoTime();
                        int status;
                        if (keepAlive) {
                            HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + a.port() + "/metrics"))
                                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofByteArray());
                            status = r.body().length < 1000 ? -1 : r.statusCode();
                        } else {
                            status = scrapeOnItsOwnConnection(a.port());
                        }
                        nanos[i] = System.nanoTime() - t0;
                        if (status != 200) {
                            throw new AssertionError("scrape " + i + (keepAlive ? " (kept alive)" : " (new connection)") + ": " + status);
                        }
                    }
                    return nanos;
                }));
            }
            long[] all = new long[1000];
            int n = 0;
            for (Future<long[]> f : clients) {
                for (long x : f.get(120, TimeUnit.SECONDS)) {
                    all[n++] = x;
                }
            }
            pool.shutdown();
            assertThat(n).isEqualTo(1000);
            Arrays.sort(all);
            System.out.printf("1000 scrapes, 50 clients: p50 %.2f ms, p99 %.2f ms, max %.2f ms%n", all[500] / 1e6, all[989] / 1e6,
                    all[999] / 1e6);
            Map<String, Double> v = PromText.parse(Http.get(a.port(), "/metrics").body());
            assertThat(v).containsEntry("fabric_agent_collection_seconds_count", 1.0);
            assertThat(v).containsEntry("fabric_agent_http_requests_rejected_total", 0.0);
        }
    }

    /** One scrape over a connection of its own, closed after it: the status, or -1 for a short body. */
    private static int scrapeOnItsOwnConnection(int port) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(30_000);
            s.getOutputStream().write("GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            byte[] all = s.getInputStream().readAllBytes();
            String head = new String(all, 0, Math.min(all.length, 12), StandardCharsets.US_ASCII);
            return all.length < 1000 ? -1 : Integer.parseInt(head.substring(9, 12));
        }
    }

    @Test
    void idleSocketsSlowlorisAndOversizedRequestsNeitherStarveScrapesNorStayOpen() throws Exception {
        AgentConfig c = TestConfigs.yaml("collection: {interval: 1h}", "http: {idle_timeout: 2s}");
        List<Socket> idle = new ArrayList<>();
        List<Socket> slow = new ArrayList<>();
        AtomicBoolean trickle = new AtomicBoolean(true);
        try (Agent a = start(c)) {
            assertThat(a.awaitReady(Duration.ofSeconds(20))).isTrue();
            for (int i = 0; i < 300; i++) {
                idle.add(new Socket("127.0.0.1", a.port()));
            }
            for (int i = 0; i < 50; i++) {
                Socket s = new Socket("127.0.0.1", a.port());
                s.getOutputStream().write("GET /metrics HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
                slow.add(s);
            }
            Thread trickler = new Thread(() -> { // one more header line per socket every 200 ms, never the end of the head
                int i = 0;
                while (trickle.get()) {
                    for (Socket s : slow) {
                        try {
                            s.getOutputStream().write(("X-" + i + ": y\r\n").getBytes(StandardCharsets.US_ASCII));
                        } catch (IOException e) {
                            // closed by the server: what should happen
                        }
                    }
                    i++;
                    try {
                        Thread.sleep(200);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            trickler.start();

            // oversized head and request line: refused with a status, not served
            assertThat(rawStatus(a.port(), "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(40_000) + "\r\n\r\n"))
                    .isEqualTo(431);
            assertThat(rawStatus(a.port(), "GET /metrics?" + "a".repeat(20_000) + " HTTP/1.1\r\nHost: x\r\n\r\n")).isEqualTo(414);

            // scrapes while 350 bad connections are open
            long t0 = System.nanoTime();
            for (int i = 0; i < 200; i++) {
                assertThat(Http.get(a.port(), "/metrics").statusCode()).isEqualTo(200);
            }
            System.out.printf("200 scrapes beside 300 idle and 50 slowloris sockets: %.1f ms each%n", (System.nanoTime() - t0) / 200 / 1e6);

            // the server closes the sockets it never answered (idle_timeout 2s), the trickling ones too
            Thread.sleep(3_000);
            int closedIdle = 0;
            for (Socket s : idle) {
                closedIdle += closedByPeer(s) ? 1 : 0;
            }
            int closedSlow = 0;
            for (Socket s : slow) {
                closedSlow += closedByPeer(s) ? 1 : 0;
            }
            assertThat(closedIdle).isEqualTo(300);
            assertThat(closedSlow).isEqualTo(50);
            trickle.set(false);
            trickler.join(5_000);
            assertThat(Http.get(a.port(), "/metrics").statusCode()).isEqualTo(200);
            Map<String, Double> v = PromText.parse(Http.get(a.port(), "/metrics?name[]=fabric_port_up").body());
            assertThat(v).containsEntry(s("fabric_port_up", "device", "mlx5_0", "port", "1"), 1.0);
        } finally {
            trickle.set(false);
            for (Socket s : idle) {
                s.close();
            }
            for (Socket s : slow) {
                s.close();
            }
        }
    }

    @Test
    void beyondMaxConnectionsTheOldestIdleIsClosedAndScrapesStillAnswer() throws Exception {
        AgentConfig c = TestConfigs.yaml("collection: {interval: 1h}", "http: {max_connections: 8, max_requests: 8}");
        List<Socket> idle = new ArrayList<>();
        try (Agent a = start(c)) {
            assertThat(a.awaitReady(Duration.ofSeconds(20))).isTrue();
            for (int i = 0; i < 20; i++) {
                idle.add(new Socket("127.0.0.1", a.port()));
            }
            // the 12 oldest are closed by the server, the 8 newest stay open
            Thread.sleep(500);
            List<Boolean> closed = new ArrayList<>();
            for (Socket s : idle) {
                closed.add(closedByPeer(s));
            }
            assertThat(closed.subList(0, 12)).containsOnly(true);
            assertThat(closed.subList(12, 20)).containsOnly(false);
            // a scrape still answers (the oldest idle connection makes room for it)
            assertThat(IdleConnectionFloodIT.scrape(a.port(), "/metrics")).startsWith("HTTP/1.1 200");
            Map<String, Double> v = PromText.parse(body(IdleConnectionFloodIT.scrape(a.port(), "/metrics?name[]=fabric_agent_http_connections"
                    + "&name[]=fabric_agent_http_connections_shed_total")));
            assertThat(v.get("fabric_agent_http_connections")).isBetween(1.0, 8.0);
            assertThat(v.get("fabric_agent_http_connections_shed_total")).isGreaterThanOrEqualTo(12.0);

        } finally {
            for (Socket s : idle) {
                s.close();
            }
        }
    }

    private static String body(String answer) {
        return answer.substring(answer.indexOf("\r\n\r\n") + 4);
    }

    /** Sends a raw request and returns the status code of the answer. */
    static int rawStatus(int port, String request) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            try {
                out.write(request.getBytes(StandardCharsets.US_ASCII));
                out.flush();
            } catch (IOException e) {
                // the server may answer and close before the whole request is written
            }
            byte[] head = new byte[12];
            int n = s.getInputStream().readNBytes(head, 0, 12);
            String line = new String(head, 0, n, StandardCharsets.US_ASCII);
            return line.startsWith("HTTP/1.") && n == 12 ? Integer.parseInt(line.substring(9, 12)) : -1;
        }
    }

    /** True when the server closed the connection (end of stream or reset), false when it is still open. */
    static boolean closedByPeer(Socket s) {
        try {
            s.setSoTimeout(500);
            InputStream in = s.getInputStream();
            return in.read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // reset
        }
    }
}
