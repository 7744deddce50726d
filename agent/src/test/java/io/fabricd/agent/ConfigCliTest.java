package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** `--config FILE` as the command line reports it: every problem at once, each with its line, in words. */
class ConfigCliTest {
    private static CliTest.Result metrics(Path cfg) {
        return CliTest.run("metrics", "--demo", "--config", cfg.toString());
    }

    /** Exit 2, no Java in the message. */
    private static String refused(CliTest.Result r) {
        assertThat(r.code()).as(r.err()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).startsWith("fabricd: config file ")
                .doesNotContain("\tat ", "Exception", "java.", "io.fabricd.", "com.fasterxml", "`", "Cannot construct", "in 'reader'");
        return r.err();
    }

    @Test
    void everyProblemOfTheFileAtOnceEachWithItsLine(@TempDir Path tmp) throws Exception {
        Path cfg = Files.writeString(tmp.resolve("fabricd.yaml"), """
                listen: :9530
                colection:
                  interval: 5s
                http:
                  max_connections: lots
                probe:
                  sizes: [64, big]
                  count: 10
                  peer: [a:9530]
                diagnosis:
                  port_errors:
                    symbol_error: often
                """);
        String err = refused(metrics(cfg));
        List<String> lines = err.lines().toList();
        assertThat(lines.get(0)).isEqualTo("fabricd: config file " + cfg + " has 5 errors:");
        assertThat(lines).hasSize(6);
        assertThat(lines.get(1)).isEqualTo("  unknown key 'colection' (line 2); known keys: bandwidth, collection, diagnosis, http, listen, "
                + "netdev, probe, rdma, state_dir, topology");
        assertThat(lines.get(2)).isEqualTo("  http.max_connections: 'lots' is not a whole number (line 5)");
        assertThat(lines.get(3)).isEqualTo("  probe.sizes[1]: 'big' is not a whole number (line 7)");
        assertThat(lines.get(4)).startsWith("  unknown key 'peer' in probe (line 9); known keys there: ").contains(", peers, ");
        assertThat(lines.get(5)).isEqualTo("  diagnosis.port_errors.symbol_error: 'often' is not a rate (like 120/h, 5/m, 10/s or 0) (line 12)");
    }

    @Test
    void oneProblemIsOneLineNamingKeyAndLine(@TempDir Path tmp) throws Exception {
        Path cfg = tmp.resolve("c.yaml");
        Files.writeString(cfg, "diagnosis:\n  port_errors:\n    symbol_error: lots\n");
        assertThat(refused(metrics(cfg))).isEqualTo("fabricd: config file " + cfg
                + ": diagnosis.port_errors.symbol_error: 'lots' is not a rate (like 120/h, 5/m, 10/s or 0) (line 3)\n");
        Files.writeString(cfg, "probe:\n  key_file: [a, b]\n");
        assertThat(refused(metrics(cfg))).contains("probe.key_file: expected a file path (line 2)");
        Files.writeString(cfg, "probe:\n  count: 99999999999999\n");
        assertThat(refused(metrics(cfg))).contains("probe.count: 99999999999999 is out of range (at most 2147483647) (line 2)");
        Files.writeString(cfg, "collection:\n  interval: [1, 2]\n");
        assertThat(refused(metrics(cfg))).contains("collection.interval: expected a duration (like 500ms, 10s, 1m) (line 2)");
        Files.writeString(cfg, "collection:\n  interval: 1ms\n");
        assertThat(refused(metrics(cfg))).contains("collection.interval must be at least 100ms (line 2)");
        Files.writeString(cfg, "listen: :9530\ncollection:\n  disabled_collectors: [gpu]\n");
        assertThat(refused(metrics(cfg))).contains("unknown collector 'gpu'").contains("(line 3)");
        Files.writeString(cfg, "collection:\n  interval: 5s\n  interval: 6s\n");
        assertThat(refused(metrics(cfg))).contains("collection.interval: given twice, on lines 2 and 3");
        Files.writeString(cfg, "- listen\n");
        assertThat(refused(metrics(cfg))).contains("must be a mapping of keys to values (key: value lines), not a list");
    }

    @Test
    void aYamlSyntaxErrorIsOneLineWithItsPlace(@TempDir Path tmp) throws Exception {
        Path cfg = tmp.resolve("c.yaml");
        Files.writeString(cfg, "listen: :9530\n\tcollection: {}\n");
        String err = refused(metrics(cfg));
        assertThat(err.strip().lines()).hasSize(1);
        assertThat(err).contains("not valid YAML: ", "(line 2, column 1)");
        Files.writeString(cfg, "probe:\n  peers: [a:1, b:2\n");
        assertThat(refused(metrics(cfg)).strip().lines()).hasSize(1);
    }

    @Test
    void devNullIsNoConfigAndEnumLikeValuesTakeAnyCase(@TempDir Path tmp) throws Exception {
        CliTest.Result none = CliTest.run("metrics", "--demo", "--config", "/dev/null");
        assertThat(none.code()).as(none.err()).isZero();
        assertThat(none.err()).isEmpty();
        assertThat(CliTest.run("diagnose", "--demo", "--config", "/dev/null", "--fail-on", "never").code()).isZero();
        Path cfg = Files.writeString(tmp.resolve("c.yaml"), "diagnosis:\n  roce: {trust: DSCP}\n");
        CliTest.Result upper = metrics(cfg);
        assertThat(upper.code()).as(upper.err()).isZero();
        // another device is still no config file
        assertThat(refused(CliTest.run("metrics", "--demo", "--config", "/dev/zero"))).contains("is not a regular file");
    }
    /** A configuration is a few KB: megabytes, or one value of thousands of characters, are refused before parsing, never echoed. */
    @Test
    void aHugeFileOrValueIsRefusedBeforeParsingAndQuotedAtMostAShortPrefix(@TempDir Path tmp) throws Exception {
        Path cfg = tmp.resolve("c.yaml");
        Files.writeString(cfg, "# a comment line\n".repeat(2 << 20 >> 4)); // 2 MiB, comments only
        assertThat(refused(metrics(cfg))).isEqualTo("fabricd: config file " + cfg
                + " is larger than 256 KiB, more than a configuration can be: is it the right file?\n");
        Files.writeString(cfg, "listen: " + "a".repeat(1 << 20) + "\n"); // one value of 1 MiB
        assertThat(refused(metrics(cfg))).contains("is larger than 256 KiB").hasSizeLessThan(200);
        // under the file's limit, over a value's: named by its key and line, not quoted
        Files.writeString(cfg, "collection:\n  interval: 5s\nlisten: " + "a".repeat(100_000) + "\n");
        assertThat(refused(metrics(cfg))).isEqualTo("fabricd: config file " + cfg
                + ": listen: a value of 100000 characters, more than the 4096 a value may have (line 3)\n");
        Files.writeString(cfg, "probe:\n  ? " + "k".repeat(10_000) + "\n  : 1\n");
        assertThat(refused(metrics(cfg))).isEqualTo("fabricd: config file " + cfg
                + ": a key of 10000 characters in probe, more than the 4096 a key may have (line 2)\n");
        // a value of fewer: quoted with its first 40 characters, whichever part of fabricd words the error
        String x = "x".repeat(3000);
        Files.writeString(cfg, "collection:\n  interval: " + x + "\n");
        assertThat(refused(metrics(cfg))).isEqualTo("fabricd: config file " + cfg + ": collection.interval: '" + "x".repeat(40)
                + "…' is not a duration (like 500ms, 10s, 1m) (line 2)\n");
        Files.writeString(cfg, "listen: " + x + "\n");
        assertThat(refused(metrics(cfg))).isEqualTo("fabricd: config file " + cfg + ": listen address '" + "x".repeat(40)
                + "…' is not HOST:PORT (line 1)\n");
        Files.writeString(cfg, "diagnosis:\n  port_errors:\n    symbol_error: " + x + "\n");
        assertThat(refused(metrics(cfg))).contains("'" + "x".repeat(40) + "…' is not a rate").hasSizeLessThan(200);
        Files.writeString(cfg, "? " + x + "\n: 1\n");
        assertThat(refused(metrics(cfg))).startsWith("fabricd: config file " + cfg + ": unknown key '" + "x".repeat(40) + "…' (line 1)")
                .hasSizeLessThan(400);
        // control characters escaped: the error stays one line and forges none
        Files.writeString(cfg, "listen: \"a\\r\\nfabricd: forged\\e[2J\"\n");
        assertThat(refused(metrics(cfg))).isEqualTo("fabricd: config file " + cfg
                + ": listen address 'a\\r\\nfabricd: forged\\u001b[2J' has no valid port (line 1)\n");
    }

    /**
     * {@code fabricd run --web.config.file F} with a header the server would refuse on every answer
     * (a CR/LF in its name or value) or one that breaks the framing: exit 2, one line naming the
     * file and the key's line, before anything listens.
     */
    @Test
    void runRefusesAWebConfigWithAHeaderThatWouldBreakEveryAnswer(@TempDir Path tmp) throws Exception {
        Path web = tmp.resolve("web.yml");
        String[][] cases = {
            {"\"X-Bad\\r\\nInjected\": v", "'X-Bad\\r\\nInjected' is not a header name"},
            {"X-Ok: \"v\\r\\nX-Injected: 1\"", "the value of 'X-Ok' has a control character (CR, LF, NUL, ...): 'v\\r\\nX-Injected: 1'"},
            {"Content-Length: 5", "'Content-Length' cannot be set here"},
        };
        for (String[] c : cases) {
            Files.writeString(web, "# served on every answer\nhttp_server_config:\n  headers:\n    X-Frame-Options: deny\n    " + c[0] + "\n");
            CliTest.Result r = run(web);
            assertThat(r.code()).as(r.err()).isEqualTo(2);
            assertThat(r.out()).isEmpty();
            assertThat(r.err()).as(c[0]).startsWith("fabricd: web config file " + web + ": http_server_config.headers: ")
                    .contains(c[1]).endsWith(" (line 5)\n").doesNotContain("\tat ", "Exception");
            assertThat(r.err().lines()).hasSize(1);
        }
        Files.writeString(web, "# a comment line\n".repeat(2 << 20 >> 4));
        assertThat(run(web).err()).isEqualTo("fabricd: web config file " + web
                + " is larger than 256 KiB, more than a configuration can be: is it the right file?\n");
    }

    /**
     * {@code fabricd run} with what a web config must not serve: TLS below 1.2, a bcrypt cost that
     * is none or one that makes every new login slow, a key that is not the certificate's. Each is
     * exit 2 and one line naming the setting (and its line) or both files, before anything listens.
     */
    @Test
    void runRefusesOldTlsBadBcryptCostsAndAKeyOfAnotherCertificate(@TempDir Path tmp) throws Exception {
        Requirements.program("openssl", "apt-get install openssl");
        Path a = certs(tmp.resolve("a"));
        Path b = certs(tmp.resolve("b"));
        Path web = tmp.resolve("web.yml");
        String tls = "tls_server_config:\n  cert_file: " + a.resolve("server.crt") + "\n  key_file: " + a.resolve("server.key") + "\n";
        String[][] cases = {
            {tls + "  min_version: TLS10\n", "tls_server_config.min_version TLS10 is refused: TLS 1.0 and 1.1 are deprecated (RFC 8996) "
                + "and fabricd serves TLS 1.2 and 1.3 only; set TLS12 (the default) or TLS13 (line 4)"},
            {tls + "  min_version: TLS11\n", "tls_server_config.min_version TLS11 is refused: "},
            {tls + "  max_version: TLS11\n", "tls_server_config.max_version TLS11 is refused: "},
            {"basic_auth_users:\n  prometheus: " + AgentTlsTest.HASH.replace("$10$", "$03$") + "\n",
                "basic_auth_users.prometheus: bcrypt cost 03 is not one (bcrypt's costs are 4 to 31), so no password could log in; "
                    + "make a new hash with htpasswd -nBC 10 prometheus (line 2)"},
            {"basic_auth_users:\n  ok: " + AgentTlsTest.HASH + "\n  prometheus: " + AgentTlsTest.HASH.replace("$10$", "$99$") + "\n",
                "basic_auth_users.prometheus: bcrypt cost 99 is not one (bcrypt's costs are 4 to 31)"},
            {"basic_auth_users:\n  prometheus: " + AgentTlsTest.HASH.replace("$10$", "$13$") + "\n",
                "basic_auth_users.prometheus: bcrypt cost 13 is above 12, the most fabricd takes: each step doubles the CPU of every login"},
            {"tls_server_config:\n  cert_file: " + a.resolve("server.crt") + "\n  key_file: " + b.resolve("server.key") + "\n",
                "tls_server_config: key_file " + b.resolve("server.key") + " is not the private key of the certificate in cert_file "
                    + a.resolve("server.crt") + " (a key of another certificate, or a certificate renewed with a new key): give the key "
                    + "the certificate was issued for"},
        };
        for (String[] c : cases) {
            Files.writeString(web, c[0]);
            CliTest.Result r = run(web);
            assertThat(r.code()).as(r.err()).isEqualTo(2);
            assertThat(r.out()).isEmpty();
            assertThat(r.err()).as(c[0]).startsWith("fabricd: web config file " + web + ": " + c[1]).doesNotContain("\tat ", "Exception");
            assertThat(r.err().lines()).hasSize(1);
        }
    }

    /** tools/test-certs.sh's CA, server and client certificates in {@code dir}. */
    static Path certs(Path dir) throws Exception {
        Process p = new ProcessBuilder(Requirements.repoRoot().resolve("tools/test-certs.sh").toString(), dir.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        return dir;
    }

    /** The daemon in process, bounded: one that starts serving instead of refusing fails the test rather than hanging it. */
    private static CliTest.Result run(Path web) throws Exception {
        ExecutorService ex = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "fabricd-run");
            t.setDaemon(true);
            return t;
        });
        try {
            return ex.submit(() -> CliTest.run("run", "--demo", "--listen", "127.0.0.1:0", "--web.config.file", web.toString()))
                    .get(60, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("fabricd run started with " + web + " instead of refusing it", e);
        } finally {
            ex.shutdownNow();
        }
    }
}
