package io.fabricd.agent.http;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.net.ServerSSLOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.List;
import java.util.logging.Logger;

/**
 * Reloads the server's certificate, key and client CA when their files change, so that a renewed
 * certificate (cert-manager writes the new one into the mounted Secret; a package's renewal hook
 * into /etc) is served without a restart. Checks once a minute: a renewal is due days before
 * expiry. The files are read whole (each is a few KiB; a file over 1 MiB is not a certificate and
 * is left alone); a half-written pair that fails to load keeps the previous one, logged, and is
 * tried again at the next change.
 */
public final class TlsReload {
    private static final Logger LOG = Logger.getLogger(TlsReload.class.getName());
    public static final long PERIOD_MS = 60_000;
    private static final long MAX_FILE = 1 << 20;

    private final HttpServer server;
    private final ServerSSLOptions options;
    private final List<Path> files;
    private byte[] seen;

    private TlsReload(HttpServer server, ServerSSLOptions options, List<Path> files) {
        this.server = server;
        this.options = options;
        this.files = files;
        this.seen = digest();
    }

    /**
     * Watches {@code files} (certificate, key, client CA) and reloads {@code options} into the
     * server when they change; returns the timer's id.
     */
    public static long watch(Vertx vertx, HttpServer server, ServerSSLOptions options, List<Path> files, long periodMs) {
        TlsReload r = new TlsReload(server, options.copy(), List.copyOf(files));
        // the digest is read off the event loop: a file on a slow mount must not stall requests
        return vertx.setPeriodic(periodMs, id -> vertx.executeBlocking(r::changed, false).onSuccess(c -> {
            if (c) {
                r.reload();
            }
        }));
    }

    /** Watches at the default period (one minute). */
    public static long watch(Vertx vertx, HttpServer server, ServerSSLOptions options, List<Path> files) {
        return watch(vertx, server, options, files, PERIOD_MS);
    }

    private synchronized boolean changed() {
        byte[] now = digest();
        if (now == null || Arrays.equals(now, seen)) {
            return false;
        }
        seen = now;
        return true;
    }

    private void reload() {
        server.updateSSLOptions(options.copy(), true).onComplete(r -> {
            if (r.succeeded()) {
                LOG.info("TLS: certificate files changed, reloaded " + files);
            } else {
                LOG.warning("TLS: certificate files changed but do not load (" + r.cause().getMessage()
                        + "); still serving the previous certificate. Fix the files; they are tried again when they change");
            }
        });
    }

    /** SHA-256 over the files' contents; null when one cannot be read (mid-update): no change then. */
    private byte[] digest() {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            for (Path f : files) {
                if (Files.size(f) > MAX_FILE) {
                    return null;
                }
                d.update(Files.readAllBytes(f));
                d.update((byte) 0);
            }
            return d.digest();
        } catch (IOException e) {
            return null;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 unavailable", e);
        }
    }
}
