package io.fabricd.agent.http;

import at.favre.lib.crypto.bcrypt.BCrypt;
import io.fabricd.agent.Meters;
import io.fabricd.model.metrics.AgentMetrics;
import io.fabricd.probes.bandwidth.BandwidthMessages;
import io.fabricd.probes.peers.EndpointClient;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * HTTP basic authentication against the web config file's bcrypt hashes ({@code basic_auth_users}),
 * as exporter-toolkit does it:
 *
 * <ul>
 *   <li>every path but {@code /healthz} and {@code /readyz} (the kubelet's probes, which tell
 *       nothing) and the probe endpoint (authenticated with the fabric's key, by agents that hold
 *       no scrape password) needs a user and its password; others get 401 with
 *       {@code WWW-Authenticate};</li>
 *   <li>bcrypt costs ~50-100 ms of CPU by design: it runs on a worker thread, never the event
 *       loop, and a user and password that passed are remembered (a SHA-256 of them with the hash,
 *       in memory) so a scrape every 15 s does not pay it each time;</li>
 *   <li>an unknown user costs a bcrypt too, so that timing does not tell which users exist.</li>
 * </ul>
 */
public final class BasicAuth {
    /** Paths served without a password (the endpoint and bandwidth paths are authenticated by the probe key). */
    static final Set<String> OPEN = Set.of("/healthz", "/readyz", EndpointClient.PATH, BandwidthMessages.START_PATH,
            BandwidthMessages.GO_PATH, BandwidthMessages.STOP_PATH);
    private static final int MAX_REMEMBERED = 1024;
    /** A valid hash to verify against for unknown users (cost 10, as htpasswd -nBC 10 makes them). */
    private static final byte[] DUMMY = BCrypt.withDefaults().hash(10, "fabricd".getBytes(StandardCharsets.UTF_8));

    private final Vertx vertx;
    private final Map<String, byte[]> users;
    private final Map<String, Boolean> passed = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> e) {
            return size() > MAX_REMEMBERED;
        }
    };
    private final Counter refused;

    public BasicAuth(Vertx vertx, Map<String, String> users, MeterRegistry meters) {
        this.vertx = vertx;
        this.users = new LinkedHashMap<>();
        users.forEach((u, h) -> this.users.put(u, h.getBytes(StandardCharsets.UTF_8)));
        refused = Counter.builder(Meters.name(AgentMetrics.HTTP_AUTH_FAILURES)).description(AgentMetrics.HTTP_AUTH_FAILURES.help())
                .register(meters);
    }

    /** Wraps {@code next}: it sees only requests whose user and password are right (or paths that need none). */
    public Handler<HttpServerRequest> wrap(Handler<HttpServerRequest> next) {
        return req -> {
            String path = req.path();
            String p = path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
            if (OPEN.contains(p)) {
                next.handle(req);
                return;
            }
            String[] up = credentials(req.getHeader(HttpHeaders.AUTHORIZATION));
            if (up == null) {
                deny(req);
                return;
            }
            String memo = memo(up[0], up[1]);
            Boolean ok;
            synchronized (passed) {
                ok = passed.get(memo);
            }
            if (ok != null) {
                next.handle(req);
                return;
            }
            req.pause(); // nothing read while the worker verifies
            vertx.executeBlocking(() -> verify(up[0], up[1]), false).onComplete(r -> {
                req.resume();
                if (r.succeeded() && r.result()) {
                    synchronized (passed) {
                        passed.put(memo, Boolean.TRUE);
                    }
                    next.handle(req);
                } else {
                    deny(req);
                }
            });
        };
    }

    private boolean verify(String user, String password) {
        byte[] hash = users.get(user);
        boolean known = hash != null;
        BCrypt.Result r = BCrypt.verifyer().verify(password.getBytes(StandardCharsets.UTF_8), known ? hash : DUMMY);
        return known && r.verified;
    }

    private void deny(HttpServerRequest req) {
        refused.increment();
        req.response().setStatusCode(401).putHeader("WWW-Authenticate", "Basic realm=\"fabricd\", charset=\"UTF-8\"")
                .putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; charset=utf-8").end("unauthorized\n");
    }

    /** User and password of a {@code Basic} Authorization header; null when there is none or it is malformed. */
    static String[] credentials(String header) {
        if (header == null || header.length() < 6 || !header.regionMatches(true, 0, "Basic ", 0, 6)) {
            return null;
        }
        String decoded;
        try {
            decoded = new String(Base64.getDecoder().decode(header.substring(6).strip()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return null;
        }
        int c = decoded.indexOf(':');
        return c < 0 ? null : new String[] {decoded.substring(0, c), decoded.substring(c + 1)};
    }

    private String memo(String user, String password) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update(user.getBytes(StandardCharsets.UTF_8));
            d.update((byte) 0);
            d.update(password.getBytes(StandardCharsets.UTF_8));
            d.update((byte) 0);
            byte[] h = users.get(user);
            if (h != null) {
                d.update(h);
            }
            return HexFormat.of().formatHex(d.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 unavailable", e);
        }
    }
}
