package io.fabricd.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Debian's Prometheus scrapes a demo agent over TLS with basic auth, as docs/security.md sets it
 * up: the web config file (TLS, client certificates verified when given, a bcrypt user), and the
 * scrape config's scheme, tls_config and basic_auth. A job with the wrong password and one speaking
 * plain HTTP are down. Certificates from tools/test-certs.sh.
 */
class PrometheusTlsIT {
    /** bcrypt (cost 10) of "scrape-pass" */
    static final String HASH = "$2y$10$DxdTVHZcYbVp5qfDmtg4ueQxb5zZoOaWft159lxRBOZkMvLHitvlO";

    static JsonNode query(int port, String promql) throws Exception {
        JsonNode j = PrometheusIT.JSON.readTree(PrometheusIT.get("http://127.0.0.1:" + port + "/api/v1/query?query="
                + URLEncoder.encode(promql, StandardCharsets.UTF_8)).body());
        assertThat(j.path("status").asText()).as(promql).isEqualTo("success");
        return j.at("/data/result");
    }

    @Test
    void prometheusScrapesOverTlsWithBasicAuth(@TempDir Path tmp) throws Exception {
        Path prometheus = PrometheusIT.program("prometheus", "apt-get install prometheus");
        PrometheusIT.program("openssl", "apt-get install openssl");
        Process certs = new ProcessBuilder(PrometheusIT.REPO.resolve("tools/test-certs.sh").toString(), tmp.resolve("certs").toString())
                .redirectErrorStream(true).start();
        String out = new String(certs.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(certs.waitFor()).as(out).isZero();
        Path c = tmp.resolve("certs");
        Files.writeString(c.resolve("web.yml"), String.join("\n",
                "tls_server_config:",
                "  cert_file: server.crt",
                "  key_file: server.key",
                "  client_auth_type: VerifyClientCertIfGiven",
                "  client_ca_file: ca.crt",
                "basic_auth_users:",
                "  prometheus: " + HASH, ""));
        int agent = PrometheusIT.freePort();
        List<Process> ps = new ArrayList<>();
        try {
            ps.add(new ProcessBuilder(PrometheusIT.REPO.resolve("bin/fabricd").toString(), "run", "--demo", "--listen", "127.0.0.1:" + agent,
                    "--web.config.file", c.resolve("web.yml").toString())
                    .redirectErrorStream(true).redirectOutput(tmp.resolve("agent.log").toFile()).start());
            int port = PrometheusIT.freePort();
            String tls = "    tls_config: {ca_file: " + c.resolve("ca.crt") + ", cert_file: " + c.resolve("client.crt") + ", key_file: "
                    + c.resolve("client.key") + "}";
            Path config = Files.writeString(tmp.resolve("prometheus.yml"), String.join("\n",
                    "global: {scrape_interval: 1s}",
                    "scrape_configs:",
                    "  - job_name: tls",
                    "    scheme: https",
                    tls,
                    "    basic_auth: {username: prometheus, password: scrape-pass}",
                    "    static_configs: [{targets: ['127.0.0.1:" + agent + "']}]",
                    "  - job_name: wrong-password",
                    "    scheme: https",
                    tls,
                    "    basic_auth: {username: prometheus, password: guess}",
                    "    static_configs: [{targets: ['127.0.0.1:" + agent + "']}]",
                    "  - job_name: plain-http",
                    "    static_configs: [{targets: ['127.0.0.1:" + agent + "']}]", ""));
            ps.add(new ProcessBuilder(prometheus.toString(), "--config.file=" + config, "--storage.tsdb.path=" + tmp.resolve("data"),
                    "--web.listen-address=127.0.0.1:" + port)
                    .redirectErrorStream(true).redirectOutput(tmp.resolve("prometheus.log").toFile()).start());
            PrometheusIT.awaitOk("http://127.0.0.1:" + port + "/-/ready", Duration.ofSeconds(60));
            Map<String, Double> up = new TreeMap<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline) {
                up.clear();
                for (JsonNode r : query(port, "up")) {
                    up.put(r.at("/metric/job").asText(), r.at("/value/1").asDouble());
                }
                if (up.size() == 3 && up.get("tls") == 1.0) {
                    break;
                }
                Thread.sleep(500);
            }
            assertThat(up).as(Files.readString(tmp.resolve("agent.log"))).containsEntry("tls", 1.0).containsEntry("wrong-password", 0.0)
                    .containsEntry("plain-http", 0.0);
            assertThat(query(port, "fabric_port_up{job=\"tls\"}")).hasSize(8);
            // the wrong password's scrapes were refused and counted (seen by a later scrape of the right job)
            JsonNode refused = query(port, "fabric_agent_http_auth_failures_total{job=\"tls\"} > 0");
            for (long until = System.nanoTime() + Duration.ofSeconds(30).toNanos(); refused.isEmpty() && System.nanoTime() < until; ) {
                Thread.sleep(500);
                refused = query(port, "fabric_agent_http_auth_failures_total{job=\"tls\"} > 0");
            }
            assertThat(refused).isNotEmpty();
        } finally {
            for (Process p : ps) {
                p.destroy();
                if (!p.waitFor(20, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            }
        }
    }
}
