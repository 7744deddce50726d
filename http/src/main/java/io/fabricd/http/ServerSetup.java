package io.fabricd.http;

import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The server's options: its limits, one protocol, TLS. How many connections and requests it
 * takes is {@link ConnectionLimits}', what it puts in front of the routes {@link Routes}'.
 */
public final class ServerSetup {
    private ServerSetup() {
    }

    /**
     * TLS as configured.
     *
     * @param clientCa   the CA client certificates are verified against; null: none asked
     * @param clientAuth whether a client certificate is required or only verified when given (with a CA)
     */
    public record Tls(Path cert, Path key, Path clientCa, ClientAuth clientAuth, List<String> protocols) {
        /** The files whose renewal is loaded ({@link TlsReload}). */
        public List<Path> files() {
            return Stream.of(cert, key, clientCa).filter(Objects::nonNull).toList();
        }
    }

    /**
     * The server's options.
     *
     * @param idle no traffic either way for that long, or nothing answered: the connection closes
     * @param tls  null: plain HTTP
     */
    public static HttpServerOptions options(Duration idle, int maxHeaderBytes, int maxRequestLineBytes, Tls tls) {
        // idle: no traffic either way; write idle: nothing answered, however much the client sends
        // (a slowloris trickling a request head)
        HttpServerOptions opts = new HttpServerOptions()
                .setIdleTimeoutUnit(TimeUnit.MILLISECONDS)
                .setIdleTimeout((int) idle.toMillis())
                .setWriteIdleTimeout((int) idle.toMillis())
                .setMaxHeaderSize(maxHeaderBytes)
                .setMaxInitialLineLength(maxRequestLineBytes)
                // HTTP/1.1 only: scrapers speak it; no h2c upgrade (Java's HttpClient asks for one)
                // means one protocol to bound and no HTTP/2 stream floods
                .setHttp2ClearTextEnabled(false)
                // routes gzip their large answers themselves, off the event loop: no compressor in
                // every connection's pipeline
                .setCompressionSupported(false)
                // no WebSocket paths: no WebSocket extension handler in every connection's pipeline
                .setPerMessageWebSocketCompressionSupported(false)
                .setPerFrameWebSocketCompressionSupported(false);
        if (tls != null) {
            opts.setSsl(true)
                    .setKeyCertOptions(new PemKeyCertOptions().setCertPath(tls.cert().toString()).setKeyPath(tls.key().toString()))
                    .setEnabledSecureTransportProtocols(new LinkedHashSet<>(tls.protocols()));
            if (tls.clientCa() != null) {
                opts.setTrustOptions(new PemTrustOptions().addCertPath(tls.clientCa().toString())).setClientAuth(tls.clientAuth());
            }
        }
        return opts;
    }
}
