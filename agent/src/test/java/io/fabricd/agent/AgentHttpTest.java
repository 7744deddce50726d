package io.fabricd.agent;

import static io.fabricd.testing.PromText.s;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.agent.cli.Version;
import io.fabricd.agent.config.AgentConfig;
import io.fabricd.agent.config.ListenAddress;
import io.fabricd.agent.demo.DemoHost;
import io.fabricd.collectors.Fixtures;
import io.fabricd.collectors.kernel.HostReadException;
import io.fabricd.collectors.source.ForwardingHostSource;
import io.fabricd.collectors.source.HostSource;
import io.fabricd.collectors.source.SnapshotHostSource;
import io.fabricd.model.metrics.MetricCatalogue;
import io.fabricd.model.metrics.MetricFamily;
import io.fabricd.testing.PromText;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentHttpTest {

    static AgentConfig config(Duration interval) {
        return TestConfigs.yaml("collection: {interval: " + interval.toMillis() + "ms}");
    }

    static Agent start(HostSource source, Duration interval) {
        return new Agent(source, config(interval), new ListenAddress("127.0.0.1", 0)).start();
    }

    @Test
    void servesMetricsHealthAndSnapshot() throws Exception {
        try (Agent a = start(Fixtures.open("host-a-ib"), Duration.ofHours(1))) {
            assertThat(a.awaitReady(Duration.ofSeconds(20))).isTrue();
            int port = a.port();
            assertThat(Http.get(port, "/healthz").statusCode()).isEqualTo(200);
            assertThat(Http.get(port, "/readyz").statusCode()).isEqualTo(200);

            HttpResponse<String> text = Http.get(port, "/metrics");
            assertThat(text.statusCode()).isEqualTo(200);
            assertThat(text.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain; version=0.0.4");
            Map<String, Double> v = PromText.parse(text.body());
            assertThat(v).containsEntry(s("fabric_port_up", "device", "mlx5_0", "port", "1"), 1.0);
            assertThat(v).containsEntry(s("fabric_port_pma_total", "device", "mlx5_0", "port", "1", "counter", "link_downed"), 1.0);
            // one registry: JVM metrics once (client_java), self metrics through Micrometer, no Vert.x metrics
            assertThat(text.body()).containsOnlyOnce("# TYPE jvm_memory_used_bytes gauge");
            assertThat(text.body()).contains("fabric_agent_collection_seconds_count", "fabric_agent_ready");
            // the build: the version the build wrote (the root pom's), its git revision, this JVM
            assertThat(v).containsEntry(s("fabric_build_info", "version", Version.version(),
                    "revision", Version.revision(), "java_version", System.getProperty("java.runtime.version")), 1.0);
            assertThat(Version.version()).isNotEqualTo("dev").matches("\\d+\\.\\d+\\.\\d+.*");
            assertThat(Version.revision()).isNotBlank();
            assertThat(Http.get(port, "/metrics").body()).doesNotContain("vertx_");

            HttpResponse<String> om = Http.get(port, "/metrics",
                    "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
                            + "text/plain;version=0.0.4;q=0.5,*/*;q=0.1");
            assertThat(om.headers().firstValue("Content-Type").orElse("")).startsWith("application/openmetrics-text");
            assertThat(om.body()).endsWith("# EOF\n");

            HttpResponse<String> filtered = Http.get(port, "/metrics?name[]=fabric_port_up&name[]=fabric_port_transmit_bytes_total");
            assertThat(PromText.parse(filtered.body()).keySet())
                    .containsExactlyInAnyOrder(s("fabric_port_up", "device", "mlx5_0", "port", "1"),
                            s("fabric_port_transmit_bytes_total", "device", "mlx5_0", "port", "1"));

            HttpResponse<String> snap = Http.get(port, "/api/v1/snapshot");
            assertThat(snap.headers().firstValue("Content-Type").orElse("")).isEqualTo("application/json");
            JsonNode json = new ObjectMapper().readTree(snap.body());
            assertThat(json.get("hostname").asText()).isEqualTo("dgx-h100-01");
            assertThat(json.at("/devices/0/ports/0/counters/port_xmit_data").asLong()).isEqualTo(24543663075294L);
            assertThat(json.at("/devices/0/pci_address").asText()).isEqualTo("0000:19:00.0");
            assertThat(Http.get(port, "/nope").statusCode()).isEqualTo(404);
        }
    }

    @Test
    void answersGetAndHeadOnItsPathsOnly() throws Exception {
        try (Agent a = start(Fixtures.open("host-a-ib"), Duration.ofHours(1))) {
            assertThat(a.awaitReady(Duration.ofSeconds(20))).isTrue();
            int port = a.port();
            HttpResponse<String> post = Http.CLIENT.send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + port + "/metrics"))
                    .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(post.statusCode()).isEqualTo(405);
            assertThat(post.headers().firstValue("Allow")).contains("GET, HEAD");
            assertThat(post.body()).contains("POST");

            HttpResponse<String> head = Http.CLIENT.send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + port + "/healthz"))
                    .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(head.statusCode()).isEqualTo(200);
            assertThat(head.body()).isEmpty();

            // a trailing slash is the same path; an unknown path names the ones there are
            assertThat(Http.get(port, "/healthz/").body()).isEqualTo("ok\n");
            assertThat(Http.get(port, "/metrics/?name[]=fabric_port_up").body()).contains("fabric_port_up{").doesNotContain("jvm_");
            HttpResponse<String> nope = Http.get(port, "/metricz");
            assertThat(nope.statusCode()).isEqualTo(404);
            assertThat(nope.body()).contains("/metricz", "/metrics /healthz /readyz", "/api/v1/probe/endpoint");
            // bad input is a 4xx answer, never a request left hanging
            assertThat(AgentLoadTest.rawStatus(port, "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept-Encoding: ;\r\n\r\n")).isEqualTo(200);
            assertThat(AgentLoadTest.rawStatus(port, "GET /metrics?name[]=%zz HTTP/1.1\r\nHost: x\r\n\r\n")).isEqualTo(400);
            assertThat(AgentLoadTest.rawStatus(port, "GET /metrics?name[]=%e2%82 HTTP/1.1\r\nHost: x\r\n\r\n")).isIn(200, 400);
            assertThat(Http.get(port, "/").body()).startsWith("fabricd: /metrics");
            // the server answered all of it and still serves
            assertThat(Http.get(port, "/healthz").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void servesFindingsAndJudgesRatesAgainstThePreviousCollection() throws Exception {
        // symbol_error grows by 1000 per collection: port_errors_rising needs the agent's previous collection
        AtomicLong reads = new AtomicLong();
        HostSource rising = new ForwardingHostSource(Fixtures.open("host-a-ib")) {
            @Override
            public String read(String path) throws HostReadException {
                if (path.endsWith("/counters/symbol_error")) {
                    return reads.incrementAndGet() * 1000 + "\n";
                }
                return super.read(path);
            }
        };
        try (Agent a = start(rising, Duration.ofMillis(300))) {
            assertThat(a.awaitReady(Duration.ofSeconds(20))).isTrue();
            JsonNode first = null;
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (System.nanoTime() < deadline) {
                first = new ObjectMapper().readTree(Http.get(a.port(), "/api/v1/findings").body());
                if (first.get("checks_without_history").isEmpty()) {
                    break;
                }
                Thread.sleep(100);
            }
            assertThat(first.get("host").asText()).isEqualTo("dgx-h100-01");
            assertThat(first.get("checks_without_history")).isEmpty();
            assertThat(first.at("/findings/0/check").asText()).isEqualTo("port_errors_rising");
            assertThat(first.at("/findings/0/subject/device").asText()).isEqualTo("mlx5_0");
            assertThat(first.get("collectors")).isNotEmpty();
            Map<String, Double> v = PromText.parse(Http.get(a.port(), "/metrics?name[]=fabric_finding").body());
            assertThat(v).containsEntry(s("fabric_finding", "check", "port_errors_rising", "severity", "warning", "device", "mlx5_0",
                    "port", "1", "netdev", "ibp25s0", "priority", "", "gpu", "", "pci", "", "peer", "", "direction", ""), 1.0);
        }
    }

    @Test
    void findingsOfTheDemo() throws Exception {
        try (Agent a = start(DemoHost.open(), Duration.ofHours(1))) {
            assertThat(a.awaitReady(Duration.ofSeconds(20))).isTrue();
            JsonNode j = new ObjectMapper().readTree(Http.get(a.port(), "/api/v1/findings").body());
            assertThat(j.findValuesAsText("check")).contains("pfc_missing", "mtu_mismatch", "counter_saturated", "numa_misaffinity",
                    "pcie_acs_redirect", "pcie_max_read_request");
            assertThat(j.get("checks_without_history").toString()).contains("port_errors_rising"); // one collection so far
            Map<String, Double> v = PromText.parse(Http.get(a.port(), "/metrics").body());
            assertThat(v).containsEntry(s("fabric_finding", "check", "pfc_missing", "severity", "critical", "device", "mlx5_7",
                    "port", "1", "netdev", "ens8f0np0", "priority", "3", "gpu", "", "pci", "", "peer", "", "direction", ""), 1.0);
            assertThat(v.keySet()).filteredOn(k -> k.startsWith("fabric_finding{") && !k.contains("severity=\"info\"")).hasSize(6);
        }
    }

    @Test
    void concurrentScrapesNeverCauseExtraCollections() throws Exception {
        try (Agent a = start(Fixtures.open("host-b-roce"), Duration.ofHours(1))) {
            assertThat(a.awaitReady(Duration.ofSeconds(20))).isTrue();
            ExecutorService pool = Executors.newFixedThreadPool(16);
            List<Future<Integer>> codes = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                codes.add(pool.submit(() -> Http.get(a.port(), "/metrics").statusCode()));
            }
            for (Future<Integer> f : codes) {
                assertThat(f.get()).isEqualTo(200);
            }
            pool.shutdown();
            Map<String, Double> v = PromText.parse(Http.get(a.port(), "/metrics").body());
            assertThat(v).containsEntry("fabric_agent_collection_seconds_count", 1.0);
        }
    }

    @Test
    void notReadyUntilTheFirstCollectionFinishes() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        SnapshotHostSource base = Fixtures.open("host-c-rxe");
        HostSource slow = new ForwardingHostSource(base) {
            @Override
            public List<String> list(String path) throws HostReadException {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return super.list(path);
            }
        };
        try (Agent a = start(slow, Duration.ofHours(1))) {
            assertThat(Http.get(a.port(), "/healthz").statusCode()).isEqualTo(200);
            assertThat(Http.get(a.port(), "/readyz").statusCode()).isEqualTo(503);
            assertThat(Http.get(a.port(), "/api/v1/snapshot").statusCode()).isEqualTo(503);
            assertThat(Http.get(a.port(), "/api/v1/findings").statusCode()).isEqualTo(503);
            assertThat(Http.get(a.port(), "/metrics").body()).doesNotContain("fabric_port_up");
            release.countDown();
            assertThat(a.awaitReady(Duration.ofSeconds(20))).isTrue();
            assertThat(Http.get(a.port(), "/readyz").statusCode()).isEqualTo(200);
            assertThat(Http.get(a.port(), "/metrics").body()).contains("fabric_port_up{device=\"rxe0\",port=\"1\"} 1.0");
        }
    }

    @Test
    void hostWithoutRdmaServesZeroPortsAndIsHealthy(@TempDir Path tmp) throws Exception {
        Files.createDirectories(tmp.resolve("sys/class/net"));
        try (Agent a = start(SnapshotHostSource.open(tmp), Duration.ofMillis(200))) {
            assertThat(a.awaitReady(Duration.ofSeconds(20))).isTrue();
            assertThat(Http.get(a.port(), "/readyz").statusCode()).isEqualTo(200);
            Map<String, Double> v = PromText.parse(Http.get(a.port(), "/metrics").body());
            assertThat(v.keySet()).noneMatch(k -> k.startsWith("fabric_port_"));
            assertThat(v).containsEntry(s("fabric_collector_success", "collector", "rdma"), 1.0);
        }
    }

    @Test
    void collectsOnTheInterval() throws Exception {
        try (Agent a = start(Fixtures.open("host-c-rxe"), Duration.ofMillis(150))) {
            assertThat(a.awaitReady(Duration.ofSeconds(20))).isTrue();
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            double count = 0;
            while (count < 3 && System.nanoTime() < deadline) {
                count = PromText.parse(Http.get(a.port(), "/metrics").body()).getOrDefault("fabric_agent_collection_seconds_count", 0.0);
                Thread.sleep(50);
            }
            assertThat(count).isGreaterThanOrEqualTo(3);
        }
    }

    @Test
    void servesGzipToScrapersThatAskAndRendersTheBodiesOfRhythmicScrapesAhead() throws Exception {
        try (Agent a = start(Fixtures.open("host-a-ib"), Duration.ofMillis(300))) {
            assertThat(a.awaitReady(Duration.ofSeconds(20))).isTrue();
            HttpRequest gz = HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + a.port() + "/metrics"))
                    .header("Accept-Encoding", "gzip").timeout(Duration.ofSeconds(20)).build();
            // a scraper with a rhythm (every 450 ms against collections every 300 ms), as Prometheus
            for (int i = 0; i < 10; i++) {
                HttpResponse<byte[]> r = Http.CLIENT.send(gz, HttpResponse.BodyHandlers.ofByteArray());
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(r.headers().firstValue("Content-Encoding")).hasValue("gzip");
                String body;
                try (var in = new GZIPInputStream(new ByteArrayInputStream(r.body()))) {
                    body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                }
                Map<String, Double> v = PromText.parse(body);
                assertThat(v).containsEntry(s("fabric_port_up", "device", "mlx5_0", "port", "1"), 1.0);
                assertThat(body).contains("# TYPE jvm_memory_used_bytes gauge");
                Thread.sleep(450);
            }
            // the JSON documents and a filtered scrape: gzipped by fabricd too (the server has no compressor)
            for (String path : List.of("/api/v1/snapshot", "/api/v1/findings", "/metrics?name[]=fabric_port_up")) {
                HttpResponse<byte[]> r = Http.CLIENT.send(HttpRequest.newBuilder(
                                URI.create("http://127.0.0.1:" + a.port() + path))
                        .header("Accept-Encoding", "gzip").timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofByteArray());
                assertThat(r.headers().firstValue("Content-Encoding")).as(path).hasValue("gzip");
                try (var in = new GZIPInputStream(new ByteArrayInputStream(r.body()))) {
                    String body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                    assertThat(body).as(path).contains(path.startsWith("/metrics") ? "fabric_port_up{" : "\"");
                    assertThat(Http.get(a.port(), path).headers().firstValue("Content-Encoding")).as(path).isEmpty();
                }
            }
            HttpResponse<String> plain = Http.get(a.port(), "/metrics");
            assertThat(plain.headers().firstValue("Content-Encoding")).isEmpty();
            // scrapes within one collection serve its families unchanged; the agent's own metrics are
            // rendered with each scrape
            boolean sameCollectionSeen = false;
            for (int i = 0; i < 20 && !sameCollectionSeen; i++) {
                Map<String, Double> first = PromText.parse(Http.get(a.port(), "/metrics").body());
                Map<String, Double> second = PromText.parse(Http.get(a.port(), "/metrics").body());
                // a collection's durations, to the nanosecond, tell one collection from the next
                String rdma = s("fabric_collector_duration_seconds", "collector", "rdma");
                if (first.get(rdma).equals(second.get(rdma))) {
                    assertThat(fabric(second)).isEqualTo(fabric(first));
                    sameCollectionSeen = true;
                }
            }
            assertThat(sameCollectionSeen).isTrue();
        }
    }

    /** Every fabric_ family the agent serves, its own included, is declared in the catalogue with the type it has there. */
    @Test
    void everyServedFamilyIsDeclared() throws Exception {
        try (Agent a = start(Fixtures.open("host-b-roce"), Duration.ofHours(1))) {
            assertThat(a.awaitReady(Duration.ofSeconds(20))).isTrue();
            Http.get(a.port(), "/metrics"); // the HTTP server's meters have a request to count
            Map<String, String> types = new TreeMap<>();
            for (String line : Http.get(a.port(), "/metrics").body().split("\n")) {
                String[] t = line.split(" ");
                if (line.startsWith("# TYPE fabric_")) {
                    types.put(t[2], t[3]);
                }
            }
            assertThat(types).containsKeys("fabric_agent_ready", "fabric_agent_collection_seconds", "fabric_build_info",
                    "fabric_port_up", "fabric_agent_http_connections");
            types.forEach((name, type) -> {
                boolean max = name.endsWith("_max") && MetricCatalogue.byExposedName(name).isEmpty();
                MetricFamily f = MetricCatalogue.byExposedName(max ? name.substring(0, name.length() - 4) : name)
                        .orElseThrow(() -> new AssertionError(name + " is served but not declared in io.fabricd.model.metrics"));
                String declared = max || f.type() == MetricFamily.Type.INFO ? "gauge" : f.type().word();
                assertThat(type).as(name).isEqualTo(declared);
            });
        }
    }

    /** The host's families of a scrape: fabric_*, less the agent's own. */
    private static Map<String, Double> fabric(Map<String, Double> scrape) {
        Map<String, Double> out = new TreeMap<>(scrape);
        out.keySet().removeIf(k -> !k.startsWith("fabric_") || k.startsWith("fabric_agent_"));
        return out;
    }
}
