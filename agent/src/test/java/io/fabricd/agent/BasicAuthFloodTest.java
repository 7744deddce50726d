package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import at.favre.lib.crypto.bcrypt.BCrypt;
import io.fabricd.agent.config.AgentConfig;
import io.fabricd.agent.config.ListenAddress;
import io.fabricd.collectors.Fixtures;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Wrong-password floods against a running agent with basic auth (web config basic_auth_users):
 * bcrypt is bounded in total, per source address and per source's failures, a failed password is
 * answered from memory, requests waiting for bcrypt hold no request slot, and a scraper whose
 * password the agent remembers keeps getting /metrics, as the kubelet /healthz. The flood comes from
 * other loopback addresses (127.0.0.0/8), as an attacker's many.
 */
class BasicAuthFloodTest {
    private static final String USER = "prometheus";
    private static final String PASSWORD = "s3cret pass"; // AgentTlsTest.HASH
    private static final int MAX_REQUESTS = 8;
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    Path dir;
    Agent agent;

    @BeforeEach
    void start() throws Exception {
        Path web = Files.writeString(dir.resolve("web.yml"), "basic_auth_users:\n  " + USER + ": " + AgentTlsTest.HASH + "\n");
        AgentConfig c = TestConfigs.yaml("collection: {interval: 1h}",
                "http: {web_config_file: '" + web + "', max_requests: " + MAX_REQUESTS + ", idle_timeout: 2m}");
        agent = new Agent(Fixtures.open("host-a-ib"), c, new ListenAddress("127.0.0.1", 0)).start();
        assertThat(agent.awaitReady(Duration.ofSeconds(20))).isTrue();
    }

    @AfterEach
    void stop() {
        if (agent != null) {
            agent.close();
        }
    }

    private HttpResponse<String> get(String path, String user, String password) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + agent.port() + path)).timeout(Duration.ofSeconds(60));
        if (user != null) {
            b.header("Authorization", RawHttp.basic(user, password));
        }
        return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A counter of the agent's own, read with a scrape by the right user. */
    private double counter(String name) throws Exception {
        HttpResponse<String> r = get("/metrics", USER, PASSWORD);
        assertThat(r.statusCode()).isEqualTo(200);
        for (String line : r.body().split("\n")) {
            if (line.startsWith(name + " ")) {
                return Double.parseDouble(line.substring(name.length() + 1).strip());
            }
        }
        return 0;
    }

    @Test
    void aFloodOfWrongPasswordsLeavesScrapesAndHealthAnswered() throws Exception {
        // the scraper was scraping before the flood: its password is remembered
        assertThat(get("/metrics", USER, PASSWORD).statusCode()).isEqualTo(200);
        int sources = 6;
        int perSource = 2; // 12 concurrent connections, more than max_requests (8)
        AtomicBoolean flooding = new AtomicBoolean(true);
        Map<Integer, AtomicInteger> flood = new ConcurrentHashMap<>();
        AtomicInteger sent = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(sources * perSource);
        List<Future<?>> attackers = new ArrayList<>();
        for (int i = 0; i < sources * perSource; i++) {
            String from = "127.0.0." + (10 + i / perSource);
            attackers.add(pool.submit(() -> {
                while (flooding.get()) {
                    try (RawHttp c = new RawHttp(from, agent.port())) {
                        while (flooding.get()) {
                            int n = sent.incrementAndGet();
                            c.get("/metrics", RawHttp.basic(n % 3 == 0 ? "mallory" : USER, "guess-" + n));
                            RawHttp.Reply r = c.read();
                            flood.computeIfAbsent(r.status(), k -> new AtomicInteger()).incrementAndGet();
                            if ("close".equals(r.headers().get("connection"))) {
                                break;
                            }
                        }
                    }
                }
                return null;
            }));
        }
        List<Integer> scrapes = new ArrayList<>();
        List<Integer> health = new ArrayList<>();
        try {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
            while (System.nanoTime() < end || scrapes.size() < 5) {
                scrapes.add(get("/metrics", USER, PASSWORD).statusCode());
                health.add(get("/healthz", null, null).statusCode());
            }
        } finally {
            flooding.set(false);
            pool.shutdown();
        }
        for (Future<?> a : attackers) {
            a.get(60, TimeUnit.SECONDS);
        }
        assertThat(scrapes).as("scrapes with the right password during the flood").containsOnly(200);
        assertThat(health).as("/healthz during the flood").containsOnly(200);
        assertThat(flood.keySet()).as("what the flood got").containsOnly(401, 429).contains(401, 429);
        double failures = counter("fabric_agent_http_auth_failures_total");
        double verifications = counter("fabric_agent_http_auth_verifications_total");
        assertThat(failures).isGreaterThanOrEqualTo(flood.get(401).get());
        assertThat(counter("fabric_agent_http_auth_throttled_total")).isGreaterThanOrEqualTo(flood.get(429).get());
        // each source is verified at most 10 times a minute (then 429 without bcrypt); 1: the scraper
        assertThat(verifications).isLessThanOrEqualTo(1 + sources * 10).isLessThan(sent.get());
    }

    @Test
    void aRepeatedWrongPasswordIsVerifiedOnce() throws Exception {
        assertThat(get("/metrics", USER, PASSWORD).statusCode()).isEqualTo(200);
        double before = counter("fabric_agent_http_auth_verifications_total");
        assertThat(get("/metrics", USER, "wrong").statusCode()).isEqualTo(401);
        assertThat(counter("fabric_agent_http_auth_verifications_total")).isEqualTo(before + 1);
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> r = get("/api/v1/snapshot", USER, "wrong");
            assertThat(r.statusCode()).isEqualTo(401);
            assertThat(r.headers().firstValue("WWW-Authenticate")).isPresent();
        }
        // an unknown user likewise: one bcrypt (against a dummy hash, as a known user costs), then memory
        assertThat(get("/metrics", "mallory", "wrong").statusCode()).isEqualTo(401);
        assertThat(get("/metrics", "mallory", "wrong").statusCode()).isEqualTo(401);
        assertThat(counter("fabric_agent_http_auth_verifications_total")).isEqualTo(before + 2);
        assertThat(counter("fabric_agent_http_auth_failures_total")).isGreaterThanOrEqualTo(6);
        // the right password is still remembered
        assertThat(get("/metrics", USER, PASSWORD).statusCode()).isEqualTo(200);
        assertThat(counter("fabric_agent_http_auth_verifications_total")).isEqualTo(before + 2);
    }

    @Test
    void aSourceWithTooManyFailuresIsRefusedWithoutBcrypt() throws Exception {
        assertThat(get("/metrics", USER, PASSWORD).statusCode()).isEqualTo(200); // remembered
        double before = counter("fabric_agent_http_auth_verifications_total");
        RawHttp.Reply last = null;
        try (RawHttp c = new RawHttp("127.0.0.7", agent.port())) {
            for (int i = 0; i < 20 && (last == null || last.status() == 401); i++) {
                c.get("/metrics", RawHttp.basic(USER, "guess-" + i));
                last = c.read();
            }
            assertThat(last.status()).isEqualTo(429);
            assertThat(Long.parseLong(last.headers().get("retry-after"))).isBetween(1L, 60L);
            assertThat(last.body()).startsWith("too many failed logins from 127.0.0.7");
            assertThat(counter("fabric_agent_http_auth_verifications_total")).isEqualTo(before + 10);
            // a remembered password from there is still served: it costs no bcrypt
            c.get("/metrics", RawHttp.basic(USER, PASSWORD));
            assertThat(c.read().status()).isEqualTo(200);
        }
        // other sources are not concerned
        assertThat(get("/metrics", USER, "another guess").statusCode()).isEqualTo(401);
    }

    @Test
    void tooManyVerificationsAtOnceAre503WithoutBcrypt() throws Exception {
        int n = 48; // from as many addresses, all at once: more than the 16 that may wait
        List<RawHttp> conns = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            for (int i = 0; i < n; i++) {
                conns.add(new RawHttp("127.0.1." + (i + 1), agent.port()));
            }
            CountDownLatch go = new CountDownLatch(1);
            List<Future<RawHttp.Reply>> replies = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                RawHttp c = conns.get(i);
                String auth = RawHttp.basic(USER, "guess-" + i);
                replies.add(pool.submit(() -> {
                    go.await();
                    c.get("/metrics", auth);
                    return c.read();
                }));
            }
            go.countDown();
            List<Integer> statuses = new ArrayList<>();
            for (Future<RawHttp.Reply> r : replies) {
                RawHttp.Reply reply = r.get(120, TimeUnit.SECONDS);
                statuses.add(reply.status());
                if (reply.status() == 503) { // from the bcrypt bound, not max_requests (8): waiting takes no request slot
                    assertThat(reply.headers()).containsEntry("retry-after", "1");
                    assertThat(reply.body()).isEqualTo("too many logins being checked, try again in 1 s\n");
                }
            }
            assertThat(statuses).containsOnly(401, 503).contains(503);
            assertThat(statuses.stream().filter(s -> s == 401).count()).isGreaterThan(MAX_REQUESTS);
        } finally {
            pool.shutdownNow();
            for (RawHttp c : conns) {
                c.close();
            }
        }
        assertThat(counter("fabric_agent_http_auth_verifications_total")).isLessThan(n);
    }

    @Test
    void aRefusedRequestsBodyIsNotUsed() throws Exception {
        String post = "POST /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000\r\n";
        // no password: 401 before the body, and the connection closes instead of serving another request
        try (RawHttp c = new RawHttp("127.0.0.20", agent.port())) {
            c.write(post + "\r\npart of a body");
            RawHttp.Reply r = c.read();
            assertThat(r.status()).isEqualTo(401);
            assertThat(r.headers()).containsEntry("connection", "close");
            assertThat(c.closedByServer()).isTrue();
        }
        // a wrong one: paused while bcrypt runs, then the same
        try (RawHttp c = new RawHttp("127.0.0.21", agent.port())) {
            c.write(post + "Authorization: " + RawHttp.basic(USER, "wrong") + "\r\n\r\npart of a body");
            assertThat(c.read().status()).isEqualTo(401);
            assertThat(c.closedByServer()).isTrue();
        }
        // the whole body sent after a refusal: taken and dropped, the 401 read after it (no reset)
        try (RawHttp c = new RawHttp("127.0.0.23", agent.port())) {
            c.write(post + "\r\n" + "x".repeat(1_000_000));
            assertThat(c.read().status()).isEqualTo(401);
            assertThat(c.closedByServer()).isTrue();
        }
        // Expect: 100-continue: no body comes before a 100 the agent never sends; closed once the 401 is
        // written, not after the 2 s a body is waited for
        try (RawHttp c = new RawHttp("127.0.0.24", agent.port())) {
            long start = System.nanoTime();
            c.write(post + "Expect: 100-continue\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(401);
            assertThat(c.closedByServer()).isTrue();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1900));
        }
        // without a body, the connection serves the next request after a refusal
        try (RawHttp c = new RawHttp("127.0.0.22", agent.port())) {
            c.get("/metrics", RawHttp.basic(USER, "wrong-1"));
            assertThat(c.read().status()).isEqualTo(401);
            c.get("/metrics", RawHttp.basic(USER, "wrong-2"));
            assertThat(c.read().status()).isEqualTo(401);
            c.get("/metrics", RawHttp.basic(USER, PASSWORD));
            assertThat(c.read().status()).isEqualTo(200);
        } catch (IOException e) {
            throw new AssertionError("keep-alive after a refusal", e);
        }
    }

    /**
     * A user's hash of cost 12: a wrong password for an unknown user costs as much bcrypt as one
     * for that user (it is verified against that user's hash), so timing does not tell that the
     * user exists. Against a fixed hash of cost 10 it took a quarter of the time.
     */
    @Test
    void anUnknownUserCostsAsMuchAsAKnownOneOfAHigherCost() throws Exception {
        agent.close();
        String hash = new String(BCrypt.withDefaults().hash(12, "right".getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8);
        Path web = Files.writeString(dir.resolve("dear.yml"), "basic_auth_users:\n  " + USER + ": " + hash + "\n");
        agent = new Agent(Fixtures.open("host-a-ib"), TestConfigs.yaml("collection: {interval: 1h}", "http: {web_config_file: '" + web + "'}"),
                new ListenAddress("127.0.0.1", 0)).start();
        long known = Long.MAX_VALUE;
        long unknown = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) { // the fastest of three: what the work costs, less the noise of a busy machine
            known = Math.min(known, wrongPasswordNanos(USER, "guess-" + i));
            unknown = Math.min(unknown, wrongPasswordNanos("mallory", "guess-" + i));
        }
        assertThat(unknown).as("an unknown user's %d ms against a known one's %d ms", unknown / 1_000_000, known / 1_000_000)
                .isGreaterThan(known * 2 / 3);
    }

    private long wrongPasswordNanos(String user, String password) throws Exception {
        long t = System.nanoTime();
        assertThat(get("/metrics", user, password).statusCode()).isEqualTo(401);
        return System.nanoTime() - t;
    }
}
