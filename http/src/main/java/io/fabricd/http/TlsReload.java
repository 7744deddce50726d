package io.fabricd.http;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.ServerSSLOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.logging.Logger;

/**
 * Reloads the server's certificate, key and client CA when their files change, so that a renewed
 * certificate (cert-manager writes the new one into the mounted Secret; a package's renewal hook
 * into /etc) is served without a restart. Checks once a minute: a renewal is due days before
 * expiry. The files are read whole (each is a few KiB; a file over 1 MiB is not a certificate and
 * is left alone). The certificate and key read are checked to be a pair ({@link TlsKeyPair}) and
 * served as read, so what is served is what was checked; a pair that is not one (a key and a
 * certificate replaced one after the other, a renewal with a new key whose certificate is not
 * written yet) or that fails to load keeps the previous one served, logged, and is tried again at
 * the next change.
 */
public final class TlsReload {
    private static final Logger LOG = Logger.getLogger(TlsReload.class.getName());
    public static final long PERIOD_MS = 60_000;

    private final HttpServer server;
    private final ServerSSLOptions options;
    /** The certificate, the key, then the client CA if any. */
    private final List<Path> files;
    private byte[] seen;

    /** What changed: the certificate and key to serve, or why they are not served. */
    private record Change(byte[] cert, byte[] key, String problem) {
    }

    private TlsReload(HttpServer server, ServerSSLOptions options, List<Path> files) {
        this.server = server;
        this.options = options;
        this.files = files;
        List<byte[]> now = read();
        this.seen = now == null ? null : digest(now);
    }

    /**
     * Watches {@code files} (certificate, key, client CA) and reloads {@code options} into the
     * server when they change; returns the timer's id.
     */
    public static long watch(Vertx vertx, HttpServer server, ServerSSLOptions options, List<Path> files, long periodMs) {
        TlsReload r = new TlsReload(server, options.copy(), List.copyOf(files));
        // the files are read and checked off the event loop: a file on a slow mount must not stall requests
        return vertx.setPeriodic(periodMs, id -> vertx.executeBlocking(r::changed, false).onSuccess(c -> {
            if (c != null) {
                r.reload(c);
            }
        }));
    }

    /** Null when nothing changed (or a file cannot be read: mid-update). */
    private synchronized Change changed() {
        List<byte[]> now = read();
        byte[] d = now == null ? null : digest(now);
        if (d == null || Arrays.equals(d, seen)) {
            return null;
        }
        seen = d;
        return new Change(now.get(0), now.get(1), TlsKeyPair.problem(now.get(0), now.get(1), files.get(0).toString(), files.get(1).toString()));
    }

    private void reload(Change c) {
        if (c.problem() != null) {
            LOG.warning("TLS: certificate files changed but are refused: " + c.problem() + "; still serving the previous certificate. "
                    + "They are tried again when they change");
            return;
        }
        ServerSSLOptions next = options.copy()
                .setKeyCertOptions(new PemKeyCertOptions().setCertValue(Buffer.buffer(c.cert())).setKeyValue(Buffer.buffer(c.key())));
        server.updateSSLOptions(next, true).onComplete(r -> {
            if (r.succeeded()) {
                LOG.info("TLS: certificate files changed, reloaded " + files);
            } else {
                LOG.warning("TLS: certificate files changed but do not load (" + r.cause().getMessage()
                        + "); still serving the previous certificate. Fix the files; they are tried again when they change");
            }
        });
    }

    /** The files' contents; null when one cannot be read (mid-update) or is too large to be a certificate. */
    private List<byte[]> read() {
        List<byte[]> out = new ArrayList<>();
        try {
            for (Path f : files) {
                out.add(TlsKeyPair.read(f));
            }
            return out;
        } catch (IOException e) {
            return null;
        }
    }

    /** SHA-256 over {@code contents}, each followed by a zero byte (the files' contents; a login's parts). */
    static byte[] digest(List<byte[]> contents) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            for (byte[] c : contents) {
                d.update(c);
                d.update((byte) 0);
            }
            return d.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 unavailable", e);
        }
    }
}
