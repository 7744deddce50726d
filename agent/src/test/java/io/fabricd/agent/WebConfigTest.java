package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.fabricd.agent.config.AgentConfig;
import io.fabricd.agent.config.ListenAddress;
import io.fabricd.agent.config.WebConfig;
import io.fabricd.collectors.Fixtures;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
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
        assertThat(error(dir, tls + "  min_version: TLS10\n")).startsWith("tls_server_config.min_version TLS10 is refused: ").endsWith("(line 4)");
        assertThat(error(dir, tls + "  min_version: TLS12\n  max_version: TLS11\n")).startsWith("tls_server_config.max_version TLS11 is refused")
                .endsWith("(line 5)");
        assertThat(error(dir, tls + "  min_version: TLS14\n")).contains("min_version and max_version are TLS12 or TLS13");
        for (String cost : new String[] {"00", "03", "32", "99"}) {
            assertThat(error(dir, "basic_auth_users:\n  alice: " + AgentTlsTest.HASH.replace("$10$", "$" + cost + "$") + "\n")).as(cost)
                    .isEqualTo("basic_auth_users.alice: bcrypt cost " + cost + " is not one (bcrypt's costs are 4 to 31), so no password "
                            + "could log in; make a new hash with htpasswd -nBC 10 alice (line 2)");
        }
        for (String cost : new String[] {"13", "14", "31"}) {
            assertThat(error(dir, "basic_auth_users:\n  alice: " + AgentTlsTest.HASH.replace("$10$", "$" + cost + "$") + "\n")).as(cost)
                    .startsWith("basic_auth_users.alice: bcrypt cost " + cost + " is above 12, the most fabricd takes: ").endsWith("(line 2)");
        }
        assertThat(error(dir, "http_server_config: {http2: true}\n")).contains("HTTP/1.1 only");
        assertThat(error(dir, "tls_config: {}\n")).startsWith("unknown key 'tls_config'");
        // the record's own parts are no keys of the file
        assertThat(error(dir, "dir: /etc\n")).isEqualTo("unknown key 'dir' (line 1); known keys: basic_auth_users, http_server_config, "
                + "tls_server_config");
        assertThat(error(dir, "basicAuthUsers: {}\n")).startsWith("unknown key 'basicAuthUsers'");
    }

    /** Each problem with the line of its key: a header is checked like any other value. */
    @Test
    void responseHeadersAreRfc9110TokensAndValuesAndNeverFramingOrFabricdsOwn(@TempDir Path dir) throws Exception {
        String h = "# headers added to every answer\nhttp_server_config:\n  headers:\n    X-Frame-Options: deny\n";
        assertThat(error(dir, h + "    \"X-Bad\\r\\nInjected\": v\n")).isEqualTo("http_server_config.headers: 'X-Bad\\r\\nInjected' is not "
                + "a header name (letters, digits and !#$%&'*+-.^_|~ only: no spaces, colons or control characters) (line 5)");
        assertThat(error(dir, h + "    \"X Bad\": v\n")).contains("'X Bad' is not a header name", "(line 5)");
        assertThat(error(dir, h + "    \"X-Bad:\": v\n")).contains("'X-Bad:' is not a header name");
        assertThat(error(dir, h + "    \"\": v\n")).contains("'' is not a header name");
        assertThat(error(dir, h + "    X-Ok: \"v\\r\\nX-Injected: 1\"\n")).isEqualTo("http_server_config.headers: the value of 'X-Ok' has a "
                + "control character (CR, LF, NUL, ...): 'v\\r\\nX-Injected: 1' (line 5)");
        assertThat(error(dir, h + "    X-Ok: \"v\\0\"\n")).contains("has a control character", "'v\\u0000'");
        assertThat(error(dir, h + "    X-Ok: \"v\\x1b[2J\"\n")).contains("has a control character", "'v\\u001b[2J'");
        assertThat(error(dir, h + "    X-Ok: \" v\"\n")).contains("starts or ends with a space or tab");
        assertThat(error(dir, h + "    X-Ok: \"v\\t\"\n")).contains("starts or ends with a space or tab");
        assertThat(error(dir, h + "    X-Ok: ~\n")).contains("the value of 'X-Ok' is empty");
        assertThat(error(dir, h + "    X-Ok: \"\\u2603\"\n")).contains("beyond Latin-1");
        assertThat(error(dir, h + "    x-frame-options: sameorigin\n")).contains("'x-frame-options' and 'X-Frame-Options' are one header");
        for (String framing : new String[] {"Content-Length", "transfer-encoding", "Connection", "Keep-Alive", "Upgrade", "TE", "Trailer",
            "Proxy-Connection", "Host"}) {
            assertThat(error(dir, h + "    " + framing + ": 5\n")).as(framing)
                    .isEqualTo("http_server_config.headers: '" + framing + "' cannot be set here: it frames the answer or acts between hops, "
                            + "and the server writes it itself (line 5)");
        }
        for (String own : new String[] {"Content-Type", "Content-Encoding", "Vary", "WWW-Authenticate", "Retry-After", "Allow", "Date",
            "X-Fabricd-Probe-Auth", "x-fabricd-anything"}) {
            assertThat(error(dir, h + "    " + own + ": x\n")).as(own).contains("'" + own + "' cannot be set here: fabricd sets it", "(line 5)");
        }
        assertThat(error(dir, h + "    X-Ok: [a, b]\n")).isEqualTo("http_server_config.headers.X-Ok: expected a text (line 5)");
        assertThat(error(dir, h + "    X-Frame-Options: sameorigin\n")).contains("X-Frame-Options: given twice, on lines 4 and 5");

        // exporter-toolkit's five, and any other header the rule allows (obs-text, spaces and tabs inside)
        Path ok = Files.writeString(dir.resolve("ok.yml"), h + "    Strict-Transport-Security: max-age=31536000; includeSubDomains\n"
                + "    X-Content-Type-Options: nosniff\n    X-XSS-Protection: \"0\"\n    Content-Security-Policy: default-src 'none'\n"
                + "    Cache-Control: \"no-store,\\tprivate\"\n    X-Site: caf\u00e9\n    X-Custom_Header.1~: \"a b\"\n");
        assertThat(WebConfig.load(ok).headers()).hasSize(8).containsEntry("X-Frame-Options", "deny")
                .containsEntry("Cache-Control", "no-store,\tprivate").containsEntry("X-Site", "caf\u00e9");
    }

    /** The file is bounded like the main config before it is parsed; no value is echoed whole. */
    @Test
    void aHugeWebConfigOrValueIsRefusedBeforeParsing(@TempDir Path dir) throws Exception {
        assertThat(error(dir, "# filler\n".repeat(300_000))).isEqualTo("web config file " + dir.resolve("web.yml")
                + " is larger than 256 KiB, more than a configuration can be: is it the right file?");
        assertThat(error(dir, "http_server_config:\n  headers:\n    X-Big: " + "a".repeat(100_000) + "\n")).isEqualTo(
                "http_server_config.headers.X-Big: a value of 100000 characters, more than the 4096 a value may have (line 3)");
        String user = "u".repeat(3000) + ":x";
        assertThat(error(dir, "basic_auth_users:\n  ? \"" + user + "\"\n  : x\n")).isEqualTo("basic_auth_users: a user name cannot contain ':' ('"
                + "u".repeat(40) + "…') (line 2)");
    }

    /**
     * The real agent with a header the server would refuse on every answer: it does not start (one
     * line naming the file and line) rather than start and leave every request unanswered.
     */
    @Test
    void anAgentDoesNotStartWithAHeaderThatWouldBreakEveryAnswer(@TempDir Path dir) throws Exception {
        for (String header : new String[] {"\"X-Bad\\r\\nInjected\": v", "X-Ok: \"v\\r\\nX-Injected: 1\"", "Content-Length: 5"}) {
            Path web = Files.writeString(dir.resolve("web.yml"), "http_server_config:\n  headers:\n    " + header + "\n");
            AgentConfig c = TestConfigs.yaml("collection: {interval: 1h}", "http: {web_config_file: '" + web + "'}");
            Throwable t = catchThrowable(() -> {
                try (Agent a = new Agent(Fixtures.open("host-a-ib"), c, new ListenAddress("127.0.0.1", 0)).start()) {
                    // what the agent did with it before: every request threw on the event loop and got no answer
                    HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + a.port() + "/metrics"))
                            .timeout(Duration.ofSeconds(10)).build();
                    HttpResponse<String> r = HttpClient.newHttpClient().send(req, HttpResponse.BodyHandlers.ofString());
                    throw new AssertionError("the agent started and answered " + r.statusCode() + " " + r.headers().map());
                }
            });
            assertThat(t).as(header).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("web config file " + web + ": http_server_config.headers: ").hasMessageEndingWith(" (line 3)");
            assertThat(t.getMessage().lines()).hasSize(1);
        }
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
        // bcrypt's cheapest cost and the highest fabricd takes
        for (String cost : new String[] {"04", "12"}) {
            Path users = Files.writeString(dir.resolve("users.yml"), "basic_auth_users:\n  prometheus: "
                    + AgentTlsTest.HASH.replace("$10$", "$" + cost + "$") + "\n");
            assertThat(WebConfig.load(users).basicAuthUsers()).as(cost).containsOnlyKeys("prometheus");
        }
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
