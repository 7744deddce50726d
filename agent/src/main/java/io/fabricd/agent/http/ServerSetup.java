package io.fabricd.agent.http;

import io.fabricd.agent.config.AgentConfig;
import io.fabricd.agent.config.WebConfig;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import java.util.LinkedHashSet;
import java.util.concurrent.TimeUnit;

/**
 * The agent's HTTP server as configured: its options (the {@code http} limits, one protocol, the
 * web config's TLS) and what the web config puts in front of the paths (basic auth, headers).
 * How many connections and requests it takes is {@link ConnectionLimits}'.
 */
public final class ServerSetup {
    private ServerSetup() {
    }

    /** The server's options for {@code limits}, with the TLS of {@code web} (null: plain HTTP). */
    public static HttpServerOptions options(AgentConfig.Http limits, WebConfig web) {
        // idle: no traffic either way; write idle: nothing answered, however much the client sends
        // (a slowloris trickling a request head)
        HttpServerOptions opts = new HttpServerOptions()
                .setIdleTimeoutUnit(TimeUnit.MILLISECONDS)
                .setIdleTimeout((int) limits.idleTimeout().toMillis())
                .setWriteIdleTimeout((int) limits.idleTimeout().toMillis())
                .setMaxHeaderSize(limits.maxHeaderBytes())
                .setMaxInitialLineLength(limits.maxRequestLineBytes())
                // HTTP/1.1 only: scrapers speak it; no h2c upgrade (Java's HttpClient asks for one)
                // means one protocol to bound and no HTTP/2 stream floods
                .setHttp2ClearTextEnabled(false)
                // HttpApi gzips the large answers itself, off the event loop: no compressor in
                // every connection's pipeline
                .setCompressionSupported(false)
                // no WebSocket paths: no WebSocket extension handler in every connection's pipeline
                .setPerMessageWebSocketCompressionSupported(false)
                .setPerFrameWebSocketCompressionSupported(false);
        if (web != null && web.tls()) {
            tls(opts, web);
        }
        return opts;
    }

    /** The web config's TLS: the certificate and key, client certificates against its CA, the protocol versions. */
    private static void tls(HttpServerOptions opts, WebConfig web) {
        opts.setSsl(true)
                .setKeyCertOptions(new PemKeyCertOptions().setCertPath(web.path(web.tlsServer().certFile()).toString())
                        .setKeyPath(web.path(web.tlsServer().keyFile()).toString()))
                .setEnabledSecureTransportProtocols(new LinkedHashSet<>(web.protocols()));
        if (web.clientAuth() != WebConfig.ClientAuth.NONE) {
            opts.setTrustOptions(new PemTrustOptions().addCertPath(web.path(web.tlsServer().clientCaFile()).toString()))
                    .setClientAuth(web.clientAuth() == WebConfig.ClientAuth.REQUIRED ? ClientAuth.REQUIRED : ClientAuth.REQUEST);
        }
    }

    /**
     * {@code api} behind what {@code web} asks for (null: nothing): basic auth, outside the request
     * limit {@code api} applies (a request waiting for bcrypt, or refused, holds none of
     * http.max_requests, and a remembered password goes straight to one), and the web config's
     * response headers on every answer.
     */
    public static Handler<HttpServerRequest> behindWebConfig(Handler<HttpServerRequest> api, Vertx vertx, WebConfig web,
                                                             MeterRegistry meters) {
        Handler<HttpServerRequest> h = api;
        if (web != null && !web.basicAuthUsers().isEmpty()) {
            h = new BasicAuth(vertx, web.basicAuthUsers(), meters).wrap(h);
        }
        if (web != null && !web.headers().isEmpty()) {
            Handler<HttpServerRequest> inner = h;
            h = req -> {
                try {
                    web.headers().forEach((k, v) -> req.response().putHeader(k, v));
                } catch (RuntimeException e) {
                    // checked at load (ResponseHeaders); should the server refuse one anyway, an answer, never a hung request
                    req.response().setStatusCode(500).end();
                    return;
                }
                inner.handle(req);
            };
        }
        return h;
    }
}
