package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabricd.agent.config.AgentConfig;
import io.fabricd.agent.config.ListenAddress;
import io.fabricd.agent.config.WebConfig;
import io.fabricd.collectors.Fixtures;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The web config file's checks: what fabricd cannot do is refused with one line, never ignored. */
class WebConfigTest {
    private static String error(Path dir, String yaml) throws Exception {
        Path f = Files.writeString(dir.resolve("web.yml"), yaml);
        Files.writeString(dir.resolve("a.crt"), "x");
        Files.writeString(dir.resolve("a.key"), "x");
        try {
            WebConfig.load(f);
        } catch (IllegalArgumentException e) {
            return e.getMessage().replace("web config file " + f + ": ", "");
        }
        throw new AssertionError("accepted: " + yaml);
    }

    @Test
    void refusesWhatItCannotHonour(@TempDir Path dir) throws Exception {
        String tls = "tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n";
        assertThat(error(dir, tls + "  cipher_suites: [TLS_AES_128_GCM_SHA256]\n")).contains("cipher_suites is not supported");
        assertThat(error(dir, tls + "  client_allowed_sans: [x]\n")).contains("client_allowed_sans is not supported");
        assertThat(error(dir, tls + "  client_auth_type: RequireAnyClientCert\n")).contains("is not supported");
        assertThat(error(dir, tls + "  client_auth_type: RequireAndVerifyClientCert\n")).contains("needs client_ca_file");
        assertThat(error(dir, tls + "  client_auth_type: Sometimes\n")).contains("is none of");
        assertThat(error(dir, tls + "  min_version: TLS13\n  max_version: TLS12\n")).contains("is above max_version");
        assertThat(error(dir, "tls_server_config:\n  cert_file: a.crt\n")).contains("needs cert_file and key_file");
        assertThat(error(dir, "tls_server_config:\n  cert_file: a.crt\n  key_file: nope.key\n")).contains("key_file " + dir + "/nope.key does not exist");
        assertThat(error(dir, "basic_auth_users:\n  alice: secret\n")).contains("basic_auth_users.alice is not a bcrypt hash", "htpasswd -nBC 10 alice");
        assertThat(error(dir, "http_server_config: {http2: true}\n")).contains("HTTP/1.1 only");
        assertThat(error(dir, "tls_config: {}\n")).startsWith("unknown key 'tls_config'");
        // the record's own parts are no keys of the file
        assertThat(error(dir, "dir: /etc\n")).isEqualTo("unknown key 'dir'; known keys: [tls_server_config, http_server_config, basic_auth_users]");
        assertThat(error(dir, "basicAuthUsers: {}\n")).startsWith("unknown key 'basicAuthUsers'");
    }

    @Test
    void readsTheExporterToolkitFormat(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("a.crt"), "x");
        Files.writeString(dir.resolve("a.key"), "x");
        Path f = Files.writeString(dir.resolve("web.yml"), "tls_server_config:\n  cert_file: a.crt\n  key_file: " + dir.resolve("a.key")
                + "\n  min_version: TLS13\nbasic_auth_users:\n  prometheus: " + AgentTlsTest.HASH + "\n");
        WebConfig w = WebConfig.load(f);
        assertThat(w.tls()).isTrue();
        assertThat(w.path(w.tlsServer().certFile())).isEqualTo(dir.resolve("a.crt"));
        assertThat(w.protocols()).containsExactly("TLSv1.3");
        assertThat(w.clientAuth()).isEqualTo(WebConfig.ClientAuth.NONE);
        assertThat(w.basicAuthUsers()).containsOnlyKeys("prometheus");
        // an empty file: plain HTTP, no users
        assertThat(WebConfig.load(Files.writeString(dir.resolve("empty.yml"), "")).tls()).isFalse();
    }

    @Test
    void requiredClientCertificatesRefuseAClientWithout(@TempDir Path dir) throws Exception {
        Requirements.program("openssl", "apt-get install openssl");
        Process p = new ProcessBuilder(Requirements.repoRoot().resolve("tools/test-certs.sh").toString(), dir.toString())
                .redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        assertThat(p.waitFor()).isZero();
        Path web = Files.writeString(dir.resolve("web.yml"), "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
                + "  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n");
        AgentConfig c = TestConfigs.yaml("collection: {interval: 1h}", "http: {web_config_file: '" + web + "'}");
        try (Agent a = new Agent(Fixtures.open("host-a-ib"), c, new ListenAddress("127.0.0.1", 0)).start()) {
            assertThat(a.awaitReady(Duration.ofSeconds(20))).isTrue();
            HttpRequest req = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + a.port() + "/healthz"))
                    .timeout(Duration.ofSeconds(10)).build();
            assertThat(AgentTlsTest.client(dir, true).send(req, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
            assertThatThrownBy(() -> AgentTlsTest.client(dir, false).send(req, HttpResponse.BodyHandlers.ofString()))
                    .isInstanceOf(IOException.class);
        }
    }
}
