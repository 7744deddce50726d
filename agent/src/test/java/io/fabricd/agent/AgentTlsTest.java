package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabricd.agent.config.AgentConfig;
import io.fabricd.agent.config.ListenAddress;
import io.fabricd.collectors.Fixtures;
import io.fabricd.probes.ProbeKey;
import io.fabricd.probes.peers.Endpoint;
import io.fabricd.probes.peers.EndpointClient;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Base64;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The web config file on a running agent: TLS with client certificates verified when given, basic
 * auth with a bcrypt hash; /healthz, /readyz and the probe endpoint open to the kubelet and the
 * agents. Certificates from tools/test-certs.sh (openssl).
 */
class AgentTlsTest {
    /** bcrypt of "s3cret pass", cost 10 (as htpasswd -nbBC 10 prometheus 's3cret pass' makes one) */
    static final String HASH = "$2y$10$lc8hM8Ksc.FbxzUqZf.9keXT1GOQ22/TzwCTCU/Ue.KhgeRzmuhKW";
    static final String KEY = "agent-tls-test-probe-key-0123456789abcdef";

    @TempDir
    static Path dir;
    static Agent agent;
    static HttpClient withCert;
    static HttpClient withoutCert;

    @BeforeAll
    static void start() throws Exception {
        Requirements.program("openssl", "apt-get install openssl");
        Process p = new ProcessBuilder(Requirements.repoRoot().resolve("tools/test-certs.sh").toString(), dir.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        Path web = Files.writeString(dir.resolve("web.yml"), String.join("\n",
                "tls_server_config:",
                "  cert_file: server.crt", // relative to the file's folder
                "  key_file: server.key",
                "  client_auth_type: VerifyClientCertIfGiven",
                "  client_ca_file: ca.crt",
                "http_server_config:",
                "  headers: {Strict-Transport-Security: max-age=31536000}",
                "basic_auth_users:",
                "  prometheus: " + HASH, ""));
        Path key = Files.writeString(dir.resolve("probe.key"), KEY);
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
        AgentConfig c = TestConfigs.withProbe(TestConfigs.yaml("collection: {interval: 1h}", "http: {web_config_file: '" + web + "'}"),
                AgentProbeTest.probe(key));
        agent = new Agent(Fixtures.open("host-a-ib"), c, new ListenAddress("127.0.0.1", 0)).start();
        assertThat(agent.awaitReady(Duration.ofSeconds(20))).isTrue();
        withCert = client(dir, true);
        withoutCert = client(dir, false);
    }

    @AfterAll
    static void stop() {
        if (agent != null) {
            agent.close();
        }
    }

    /** A client that trusts the test CA of {@code certs}, with its client certificate when {@code cert}. */
    static HttpClient client(Path certs, boolean cert) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(certs.resolve("ca.crt"))) {
            trust.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        KeyManagerFactory kmf = null;
        if (cert) {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            try (FileInputStream in = new FileInputStream(certs.resolve("client.p12").toFile())) {
                ks.load(in, "fabricd".toCharArray());
            }
            kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, "fabricd".toCharArray());
        }
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return HttpClient.newBuilder().sslContext(ctx).connectTimeout(Duration.ofSeconds(5)).build();
    }

    static HttpResponse<String> get(HttpClient c, String path, String user, String password) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + agent.port() + path)).timeout(Duration.ofSeconds(20));
        if (user != null) {
            b.header("Authorization", "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8)));
        }
        return c.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theRightUserAndPasswordScrapeOverTls() throws Exception {
        HttpResponse<String> r = get(withCert, "/metrics", "prometheus", "s3cret pass");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("fabric_port_up{device=\"mlx5_0\",port=\"1\"} 1.0");
        assertThat(r.headers().firstValue("Strict-Transport-Security")).contains("max-age=31536000");
        // remembered: the second costs no bcrypt, and gives the same answer
        assertThat(get(withoutCert, "/api/v1/snapshot", "prometheus", "s3cret pass").statusCode()).isEqualTo(200);
    }

    @Test
    void aMissingOrWrongPasswordOrUserIs401() throws Exception {
        HttpResponse<String> none = get(withCert, "/metrics", null, null);
        assertThat(none.statusCode()).isEqualTo(401);
        assertThat(none.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v).startsWith("Basic realm="));
        assertThat(get(withCert, "/metrics", "prometheus", "wrong").statusCode()).isEqualTo(401);
        assertThat(get(withCert, "/api/v1/findings", "mallory", "s3cret pass").statusCode()).isEqualTo(401);
        assertThat(get(withCert, "/metrics", "prometheus", "s3cret pass").statusCode()).isEqualTo(200);
        // a malformed header is a 401, not an error
        HttpResponse<String> bad = withCert.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + agent.port() + "/metrics"))
                .header("Authorization", "Basic !!!").build(), HttpResponse.BodyHandlers.ofString());
        assertThat(bad.statusCode()).isEqualTo(401);
    }

    @Test
    void healthReadinessAndTheProbeEndpointNeedNoPassword() throws Exception {
        assertThat(get(withoutCert, "/healthz", null, null).statusCode()).isEqualTo(200);
        assertThat(get(withoutCert, "/readyz", null, null).statusCode()).isEqualTo(200);
        // the probe endpoint has the fabric key's own authentication; an agent fetches it over HTTPS
        Endpoint ep = new EndpointClient(new ProbeKey(KEY.getBytes(StandardCharsets.UTF_8)), Duration.ofSeconds(5), true)
                .fetch("127.0.0.1:" + agent.port());
        assertThat(ep.host()).isEqualTo("dgx-h100-01");
        assertThat(get(withoutCert, EndpointClient.PATH, null, null).statusCode()).isEqualTo(401); // no probe key: refused by it
    }

    @Test
    void plainHttpIsNotServed() {
        assertThatThrownBy(() -> Http.get(agent.port(), "/healthz")).isInstanceOf(IOException.class);
    }
}
