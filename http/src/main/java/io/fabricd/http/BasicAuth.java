package io.fabricd.http;

import at.favre.lib.crypto.bcrypt.BCrypt;
import io.micrometer.core.instrument.Counter;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * HTTP basic authentication against the web config file's bcrypt hashes ({@code basic_auth_users}),
 * as exporter-toolkit does it:
 *
 * <ul>
 *   <li>every route of {@link Route.Access#AUTHENTICATED} (and every unknown path) needs a user
 *       and its password; others get 401 with {@code WWW-Authenticate}. Open and signed routes
 *       need none (the kubelet's health checks tell nothing; signed requests come from peers that
 *       hold no scrape password);</li>
 *   <li>it is decided before anything reads the request's body and before the request takes one of
 *       {@code http.max_requests} ({@link Routes} wraps {@link ConnectionLimits#limit} in it): a request
 *       that waits for bcrypt is paused, one refused with a body coming has its connection
 *       closed;</li>
 *   <li>bcrypt costs ~50-100 ms of CPU by design: a user and password that passed are remembered
 *       (a SHA-256 of them with the hash, in memory) and answered at once, never behind a
 *       verification, so a scrape every 15 s does not pay it each time; one that failed is
 *       remembered too and answered 401 at once (the answer cannot change while the hashes are
 *       those read at start);</li>
 *   <li>the others are verified on a thread of their own, within the bounds of {@link BcryptGate}
 *       (in total, per source address, failures per source); beyond them 429 or 503 with
 *       {@code Retry-After}, without a bcrypt;</li>
 *   <li>an unknown user costs a bcrypt too, at the highest cost among the users, so that timing does
 *       not tell which users exist.</li>
 * </ul>
 */
public final class BasicAuth {
    private static final int MAX_REMEMBERED = 1024;
    /** Failed users and passwords remembered (~150 bytes each): a repeated one costs no bcrypt. */
    private static final int MAX_FAILED = 4096;
    private final Map<String, byte[]> users;
    /**
     * What an unknown user's password is verified against: the hash of the highest cost among the
     * users, so that an unknown user takes as long as the slowest known one. Its own user is never
     * let in through it ({@link #verify} asks that the user be known).
     */
    private final byte[] dummy;
    private final Memo passed = new Memo(MAX_REMEMBERED);
    private final Memo failed = new Memo(MAX_FAILED);
    private final BcryptGate gate;
    private final Counter refused;
    private final Counter throttled;

    public BasicAuth(Vertx vertx, Map<String, String> users, HttpMeters meters) {
        this.users = new LinkedHashMap<>();
        users.forEach((u, h) -> this.users.put(u, h.getBytes(StandardCharsets.UTF_8)));
        this.dummy = this.users.values().stream().max(Comparator.comparingInt(BasicAuth::cost)).orElse(null);
        refused = meters.counter(HttpMeters.Kind.AUTH_FAILURES);
        throttled = meters.counter(HttpMeters.Kind.AUTH_THROTTLED);
        Counter verified = meters.counter(HttpMeters.Kind.AUTH_VERIFICATIONS);
        gate = new BcryptGate(vertx, verified::increment, System::nanoTime);
    }

    /**
     * Wraps {@code next}: it sees only requests whose user and password are right (or paths that
     * need none). Called on the event loop.
     */
    public Handler<HttpServerRequest> wrap(Handler<HttpServerRequest> next, Predicate<HttpServerRequest> open) {
        return req -> {
            if (open.test(req)) {
                next.handle(req);
                return;
            }
            String[] up = credentials(req.getHeader(HttpHeaders.AUTHORIZATION));
            if (up == null) {
                deny(req, false);
                return;
            }
            String memo = memo(up[0], up[1]);
            if (passed.contains(memo)) {
                next.handle(req);
                return;
            }
            if (failed.contains(memo)) {
                deny(req, false);
                return;
            }
            req.pause(); // nothing read while the bcrypt thread verifies
            BcryptGate.Refusal no = gate.submit(BcryptGate.source(req.remoteAddress()), () -> verify(up[0], up[1]), ok -> {
                (ok ? passed : failed).add(memo);
                if (req.response().closed()) {
                    return; // the client hung up while it was verified
                }
                if (ok) {
                    next.handle(req);
                    req.resume(); // after: next has set its body handlers, none of the body is lost
                } else {
                    deny(req, true);
                }
            });
            if (no != null) {
                throttled.increment();
                req.response().putHeader(HttpHeaders.RETRY_AFTER, Long.toString(no.retryAfter()));
                refuse(req, true, no.status(), no.message());
            }
        };
    }

    private boolean verify(String user, String password) {
        byte[] hash = users.get(user);
        boolean known = hash != null;
        if (dummy == null) {
            return false; // no users: nobody logs in
        }
        BCrypt.Result r = BCrypt.verifyer().verify(password.getBytes(StandardCharsets.UTF_8), known ? hash : dummy);
        return known && r.verified;
    }

    /** The cost of a hash as WebConfig checked it ({@code $2y$10$...}). */
    private static int cost(byte[] hash) {
        int at = new String(hash, StandardCharsets.US_ASCII).indexOf('$', 1) + 1;
        return (hash[at] - '0') * 10 + hash[at + 1] - '0';
    }

    private void deny(HttpServerRequest req, boolean paused) {
        refused.increment();
        req.response().putHeader("WWW-Authenticate", "Basic realm=\"fabricd\", charset=\"UTF-8\"");
        refuse(req, paused, 401, "unauthorized");
    }

    /**
     * Answers {@code status} without using the request's body: when one is coming, the connection
     * closes after the answer ({@link LingeringClose}) rather than serve another request.
     */
    private static void refuse(HttpServerRequest req, boolean paused, int status, String message) {
        boolean coming = LingeringClose.bodyComing(req);
        LingeringClose.text(req, status, message + "\n");
        if (paused && !coming) {
            req.resume(); // the request's end, so that the connection serves its next one
        }
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

    /** What a user and password are remembered by: a SHA-256 of them with the user's hash. */
    private String memo(String user, String password) {
        byte[] h = users.getOrDefault(user, new byte[0]);
        return HexFormat.of().formatHex(TlsReload.digest(List.of(user.getBytes(StandardCharsets.UTF_8),
                password.getBytes(StandardCharsets.UTF_8), h)));
    }

    /** Users and passwords (their memo) remembered, the least recently seen forgotten first beyond {@code max}. */
    private static final class Memo {
        private final Map<String, Boolean> seen;

        Memo(int max) {
            seen = new LinkedHashMap<>(16, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Boolean> e) {
                    return size() > max;
                }
            };
        }

        synchronized boolean contains(String memo) {
            return seen.get(memo) != null;
        }

        synchronized void add(String memo) {
            seen.put(memo, Boolean.TRUE);
        }
    }
}
