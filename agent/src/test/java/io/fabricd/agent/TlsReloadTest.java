package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.agent.config.AgentConfig;
import io.fabricd.agent.config.ListenAddress;
import io.fabricd.collectors.Fixtures;
import io.fabricd.probes.peers.AnyCertificateContext;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A renewed certificate is served without a restart (cert-manager rewrites the mounted Secret;
 * the kubelet swaps the files in): the agent serves the new one after its next look, and a
 * certificate that does not load keeps the old one served.
 */
class TlsReloadTest {
    @TempDir
    Path dir;

    @Test
    void aRenewedCertificateIsServedWithoutARestart() throws Exception {
        Requirements.program("openssl", "apt-get install openssl");
        Path first = certs("first");
        Path renewed = certs("renewed");
        Path live = Files.createDirectories(dir.resolve("live"));
        install(first, live);
        Path web = Files.writeString(live.resolve("web.yml"), "tls_server_config: {cert_file: server.crt, key_file: server.key}\n");
        AgentConfig c = TestConfigs.yaml("collection: {interval: 1h}", "http: {web_config_file: '" + web + "'}");
        try (Agent a = new Agent(Fixtures.open("host-a-ib"), c, new ListenAddress("127.0.0.1", 0)).tlsReloadEvery(Duration.ofMillis(200))
                .start()) {
            assertThat(served(a.port())).isEqualTo(fingerprint(first.resolve("server.crt")));

            // a broken certificate (half a file): the old one stays served
            Files.writeString(live.resolve("server.crt.tmp"), "-----BEGIN CERTIFICATE-----\nMIIB\n");
            Files.move(live.resolve("server.crt.tmp"), live.resolve("server.crt"), StandardCopyOption.ATOMIC_MOVE);
            Thread.sleep(1000);
            assertThat(served(a.port())).isEqualTo(fingerprint(first.resolve("server.crt")));

            install(renewed, live);
            String want = fingerprint(renewed.resolve("server.crt"));
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            String now = served(a.port());
            while (!now.equals(want) && System.nanoTime() < deadline) {
                Thread.sleep(100);
                now = served(a.port());
            }
            assertThat(now).as("the renewed certificate is served").isEqualTo(want);
        }
    }

    /**
     * A certificate renewed with a new key whose key file is not written yet (or a key of another
     * certificate): the old pair stays served, the refusal is logged with both files, and the new
     * pair is served once its key arrives.
     */
    @Test
    void aCertificateWithAnotherKeyKeepsTheOldPairAndSaysWhy() throws Exception {
        Requirements.program("openssl", "apt-get install openssl");
        Path first = certs("first");
        Path renewed = certs("renewed");
        Path live = Files.createDirectories(dir.resolve("live"));
        install(first, live);
        Path web = Files.writeString(live.resolve("web.yml"), "tls_server_config: {cert_file: server.crt, key_file: server.key}\n");
        AgentConfig c = TestConfigs.yaml("collection: {interval: 1h}", "http: {web_config_file: '" + web + "'}");
        List<String> warnings = new CopyOnWriteArrayList<>();
        Handler h = new Handler() {
            @Override
            public void publish(LogRecord r) {
                if (r.getLevel().intValue() >= Level.WARNING.intValue()) {
                    warnings.add(r.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger log = Logger.getLogger("io.fabricd.http.TlsReload");
        log.addHandler(h);
        try (Agent a = new Agent(Fixtures.open("host-a-ib"), c, new ListenAddress("127.0.0.1", 0)).tlsReloadEvery(Duration.ofMillis(200))
                .start()) {
            String old = fingerprint(first.resolve("server.crt"));
            copy(renewed.resolve("server.crt"), live.resolve("server.crt"));
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (warnings.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertThat(warnings).as("the refusal is logged").singleElement().asString()
                    .contains("key_file " + live.resolve("server.key") + " is not the private key of the certificate in cert_file "
                            + live.resolve("server.crt"), "still serving the previous certificate");
            assertThat(served(a.port())).as("the old pair still served, handshakes work").isEqualTo(old);

            copy(renewed.resolve("server.key"), live.resolve("server.key"));
            String want = fingerprint(renewed.resolve("server.crt"));
            String now = served(a.port());
            while (!now.equals(want) && System.nanoTime() < deadline + Duration.ofSeconds(20).toNanos()) {
                Thread.sleep(100);
                now = served(a.port());
            }
            assertThat(now).as("the renewed pair is served once whole").isEqualTo(want);
        } finally {
            log.removeHandler(h);
        }
    }

    private static void copy(Path from, Path to) throws Exception {
        Files.copy(from, to.resolveSibling(to.getFileName() + ".tmp"), StandardCopyOption.REPLACE_EXISTING);
        Files.move(to.resolveSibling(to.getFileName() + ".tmp"), to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private Path certs(String name) throws Exception {
        Path d = dir.resolve(name);
        Process p = new ProcessBuilder(Requirements.repoRoot().resolve("tools/test-certs.sh").toString(), d.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        return d;
    }

    /** As the kubelet updates a Secret volume: each file replaced whole, by a rename. */
    private static void install(Path from, Path to) throws Exception {
        for (String f : new String[] {"server.key", "server.crt"}) {
            Files.copy(from.resolve(f), to.resolve(f + ".tmp"), StandardCopyOption.REPLACE_EXISTING);
            Files.move(to.resolve(f + ".tmp"), to.resolve(f), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private static String fingerprint(Path pem) throws Exception {
        try (InputStream in = Files.newInputStream(pem)) {
            X509Certificate c = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(c.getEncoded()));
        }
    }

    /** The SHA-256 of the certificate the agent presents (whoever signed it). */
    private static String served(int port) throws Exception {
        SSLContext ctx = AnyCertificateContext.get();
        try (SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket("127.0.0.1", port)) {
            s.startHandshake();
            X509Certificate c = (X509Certificate) s.getSession().getPeerCertificates()[0];
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(c.getEncoded()));
        }
    }
}
