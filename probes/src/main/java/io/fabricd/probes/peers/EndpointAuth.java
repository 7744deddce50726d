package io.fabricd.probes.peers;

import io.fabricd.probes.ProbeKey;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Authentication of the endpoint exchange (docs/security.md), both ways, with the fabric's key:
 *
 * <ul>
 *   <li>a request carries {@code X-Fabricd-Probe-Auth: 2:<epoch seconds>:<nonce>:<tag>}, the tag an
 *       HMAC of the method, path, target (the {@code Host} the client addressed), time and a fresh
 *       random nonce. The responder accepts it within {@link #WINDOW_SECONDS} of its clock and
 *       once: a captured request can be neither replayed nor sent to another agent or path;</li>
 *   <li>the answer carries {@code X-Fabricd-Probe-Answer-Auth: <tag>}, an HMAC of the request's
 *       nonce and the SHA-256 of the body: a peer without the key (or a man in the middle) cannot
 *       feed an agent an endpoint, and an old answer cannot be replayed to a new request.</li>
 * </ul>
 */
public final class EndpointAuth {
    public static final String REQUEST_HEADER = "X-Fabricd-Probe-Auth";
    public static final String ANSWER_HEADER = "X-Fabricd-Probe-Answer-Auth";
    /** How far a request's time may be from the responder's clock. */
    public static final long WINDOW_SECONDS = 300;
    /** Nonces remembered within the window; beyond it the oldest are forgotten first. */
    public static final int MAX_NONCES = 16_384;
    private static final String VERSION = "2";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final ProbeKey key;
    /** Nonces accepted within the window, oldest first, with their request time. */
    private final Map<String, Long> seen = new LinkedHashMap<>();

    public EndpointAuth(ProbeKey key) {
        this.key = key;
    }

    /** A request's header and the nonce its answer must be bound to. */
    public record Request(String header, String nonce) {
    }

    /** What the responder made of a request header. */
    public enum Verdict {
        OK, MISSING, MALFORMED, STALE, BAD_TAG, REPLAYED
    }

    /** The header of a new request of {@code method path} to {@code target} (HOST:PORT as in the URL). */
    public Request request(String method, String path, String target, long nowEpochSeconds) {
        byte[] n = new byte[16];
        RANDOM.nextBytes(n);
        String nonce = HexFormat.of().formatHex(n);
        String tag = ProbeKey.hex(key.tag(requestText(method, path, target, nowEpochSeconds, nonce)));
        return new Request(VERSION + ":" + nowEpochSeconds + ":" + nonce + ":" + tag, nonce);
    }

    private static String requestText(String method, String path, String target, long ts, String nonce) {
        return "fabricd-endpoint-request\n" + VERSION + "\n" + method + "\n" + path + "\n" + target + "\n" + ts + "\n" + nonce;
    }

    /**
     * Checks a request header against what the responder saw ({@code target}: the request's Host
     * header) and remembers its nonce when it is good.
     */
    public Verdict check(String header, String method, String path, String target, long nowEpochSeconds) {
        if (header == null || header.isEmpty()) {
            return Verdict.MISSING;
        }
        String[] f = header.split(":", -1);
        if (f.length != 4 || !f[0].equals(VERSION) || !f[2].matches("[0-9a-f]{32}") || !f[3].matches("[0-9a-f]{32}")
                || target == null) {
            return Verdict.MALFORMED;
        }
        long ts;
        try {
            ts = Long.parseLong(f[1]);
        } catch (NumberFormatException e) {
            return Verdict.MALFORMED;
        }
        if (Math.abs(nowEpochSeconds - ts) > WINDOW_SECONDS) {
            return Verdict.STALE;
        }
        byte[] want = key.tag(requestText(method, path, target, ts, f[2]));
        if (!MessageDigest.isEqual(want, HexFormat.of().parseHex(f[3]))) {
            return Verdict.BAD_TAG;
        }
        synchronized (seen) {
            for (Iterator<Long> it = seen.values().iterator(); it.hasNext(); ) {
                if (Math.abs(nowEpochSeconds - it.next()) <= WINDOW_SECONDS && seen.size() < MAX_NONCES) {
                    break; // insertion order is roughly time order: the rest are younger
                }
                it.remove();
            }
            if (seen.putIfAbsent(f[2], ts) != null) {
                return Verdict.REPLAYED;
            }
        }
        return Verdict.OK;
    }

    /** The answer header for a body answering the request of {@code nonce}. */
    public String answerHeader(String nonce, byte[] body) {
        return ProbeKey.hex(key.tag(answerText(nonce, body)));
    }

    /** True when {@code header} authenticates {@code body} as the answer to the request of {@code nonce}. */
    public boolean checkAnswer(String nonce, byte[] body, String header) {
        if (header == null || !header.matches("[0-9a-f]{32}")) {
            return false;
        }
        return MessageDigest.isEqual(key.tag(answerText(nonce, body)), HexFormat.of().parseHex(header));
    }

    /**
     * The path a request with a body is signed for: the path and the SHA-256 of the body, so a
     * captured request's header cannot carry another body.
     */
    public static String signedPath(String path, byte[] body) {
        return path + "\nsha256:" + HexFormat.of().formatHex(sha256(body));
    }

    private static byte[] sha256(byte[] b) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(b);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 unavailable", e);
        }
    }

    /** The nonce of a well-formed request header (for the answer), else null. */
    public static String nonce(String header) {
        String[] f = header == null ? new String[0] : header.split(":", -1);
        return f.length == 4 ? f[2] : null;
    }

    private static String answerText(String nonce, byte[] body) {
        return "fabricd-endpoint-answer\n" + VERSION + "\n" + nonce + "\n" + HexFormat.of().formatHex(sha256(body));
    }
}
