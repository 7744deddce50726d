package io.fabricd.probes.peers;

import io.fabricd.probes.ProbeKey;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Authentication of the endpoint exchange and the bandwidth requests (docs/security.md), both
 * ways, with the fabric's key:
 *
 * <ul>
 *   <li>a request carries {@code X-Fabricd-Probe-Auth: 4:<epoch seconds>:<nonce>:<agent id>:<body sha256>:<tag>},
 *       the tag an HMAC of the method, path, the id of the agent it is for ({@link #agentId}), time,
 *       a fresh random nonce and the SHA-256 of the body. The responder checks it from the headers
 *       alone, before any body is read: within {@link #WINDOW_SECONDS} of its clock, for its OWN id
 *       (never one a header names), and once. A captured request can be neither replayed nor sent
 *       to another agent, path or body;</li>
 *   <li>a request for another agent's id (or for none: "-", a requester that does not know it yet)
 *       whose tag is good is refused with this agent's id in {@link #AGENT_ID_HEADER}, which the
 *       requester learns ({@link EndpointClient}). That id is not authenticated: the answer is;</li>
 *   <li>the answer carries {@code X-Fabricd-Probe-Answer-Auth: 4:<node name>:<tag>}, the answering
 *       agent's node name (URL-encoded) and an HMAC of its id, that name, the request's nonce and
 *       the SHA-256 of the body. The requester takes it only as the answer of the agent it signed the
 *       request for, whose id that name gives ({@link #answerer}): a peer without the key (or a man in
 *       the middle) can neither feed an agent an answer nor replay an old one, and one that relays
 *       the requests to another agent of the fabric gets them answered in that agent's name, which
 *       the requester sees (the job gate takes no node's answer from another node's agent).</li>
 * </ul>
 *
 * Version 3 headers (whose answers did not name their agent) and version 2 ones (bound to the
 * {@code Host} the sender chose) are refused: agents of this release do not exchange endpoints with
 * older ones.
 */
public final class EndpointAuth {
    public static final String REQUEST_HEADER = "X-Fabricd-Probe-Auth";
    public static final String ANSWER_HEADER = "X-Fabricd-Probe-Answer-Auth";
    /** This agent's id, on a 401 to a request signed for another agent or for none. */
    public static final String AGENT_ID_HEADER = "X-Fabricd-Agent-Id";
    /** The agent id of a request whose sender does not know it yet. */
    public static final String UNKNOWN_AGENT = "-";
    /** How far a request's time may be from the responder's clock. */
    public static final long WINDOW_SECONDS = 300;
    /** Nonces remembered within the window; beyond it the oldest are forgotten first. */
    public static final int MAX_NONCES = 16_384;
    private static final String VERSION = "4";
    /** The longest answer header taken: a node name of 253 characters, each URL-encoded as up to 12. */
    private static final int MAX_ANSWER_HEADER = 4096;
    private static final String HEX32 = "[0-9a-f]{32}";
    private static final String EMPTY_BODY = sha256Hex(new byte[0]);
    private static final SecureRandom RANDOM = new SecureRandom();

    private final ProbeKey key;
    /** This agent's node name (null: a requester only, which accepts no request). */
    private final Supplier<String> nodeName;
    /** The last node name and its id. */
    private volatile Self self = new Self(null, null);
    /** Nonces accepted within the window, oldest first, with their request time. */
    private final Map<String, Long> seen = new LinkedHashMap<>();

    /** A requester's: signs requests and checks answers. */
    public EndpointAuth(ProbeKey key) {
        this(key, null);
    }

    /** A responder's, whose identity is the id of {@code nodeName}'s current value ({@link #agentId}). */
    public EndpointAuth(ProbeKey key, Supplier<String> nodeName) {
        this.key = key;
        this.nodeName = nodeName;
    }

    private record Self(String name, String id) {
    }

    /** A request's header and the nonce its answer must be bound to. */
    public record Request(String header, String nonce) {
    }

    /** What the responder made of a request header. */
    public enum Verdict {
        OK, MISSING, MALFORMED, OLD_VERSION, STALE, BAD_TAG, WRONG_AGENT, REPLAYED, BODY_MISMATCH
    }

    /**
     * The id of the agent named {@code nodeName} in the fabric of {@code key}: the first 16 bytes,
     * hex, of HMAC(key, "fabricd-agent-id\n" + name). It says nothing about the name without the key.
     */
    public static String agentId(ProbeKey key, String nodeName) {
        return ProbeKey.hex(key.tag("fabricd-agent-id\n" + nodeName));
    }

    /** This agent's id; null for a requester's EndpointAuth. */
    public String agentId() {
        return nodeName == null ? null : self().id();
    }

    /** This agent's node name and its id, as of now. */
    private Self self() {
        String name = nodeName.get();
        Self s = self;
        if (!name.equals(s.name())) {
            s = new Self(name, agentId(key, name));
            self = s;
        }
        return s;
    }

    /**
     * The header of a new request of {@code method path} with {@code body} (null: none) to the agent
     * of id {@code targetId} ({@link #UNKNOWN_AGENT} when not known yet).
     */
    public Request request(String method, String path, String targetId, byte[] body, long nowEpochSeconds) {
        byte[] n = new byte[16];
        RANDOM.nextBytes(n);
        String nonce = HexFormat.of().formatHex(n);
        String digest = body == null ? EMPTY_BODY : sha256Hex(body);
        String tag = ProbeKey.hex(key.tag(requestText(method, path, targetId, nowEpochSeconds, nonce, digest)));
        return new Request(String.join(":", VERSION, Long.toString(nowEpochSeconds), nonce, targetId, digest, tag), nonce);
    }

    private static String requestText(String method, String path, String target, long ts, String nonce, String digest) {
        return "fabricd-endpoint-request\n" + VERSION + "\n" + method + "\n" + path + "\n" + target + "\n" + ts + "\n" + nonce + "\n"
                + digest;
    }

    /**
     * Checks a request header from the headers alone (no body needed: its SHA-256 is signed in the
     * header, {@link #checkBody} checks it once read) and remembers its nonce when it is good.
     */
    public Verdict check(String header, String method, String path, long nowEpochSeconds) {
        if (header == null || header.isEmpty()) {
            return Verdict.MISSING;
        }
        String[] f = header.split(":", -1);
        if (f.length == 4 && f[0].equals("2") || f.length == 6 && f[0].equals("3")) {
            return Verdict.OLD_VERSION;
        }
        if (f.length != 6 || !f[0].equals(VERSION) || !f[1].matches("\\d{1,12}") || !f[2].matches(HEX32)
                || !f[3].matches(HEX32) && !f[3].equals(UNKNOWN_AGENT) || !f[4].matches("[0-9a-f]{64}") || !f[5].matches(HEX32)) {
            return Verdict.MALFORMED;
        }
        long ts = Long.parseLong(f[1]);
        if (Math.abs(nowEpochSeconds - ts) > WINDOW_SECONDS) {
            return Verdict.STALE;
        }
        byte[] want = key.tag(requestText(method, path, f[3], ts, f[2], f[4]));
        if (!MessageDigest.isEqual(want, HexFormat.of().parseHex(f[5]))) {
            return Verdict.BAD_TAG;
        }
        String mine = agentId();
        if (mine == null || !MessageDigest.isEqual(mine.getBytes(StandardCharsets.US_ASCII), f[3].getBytes(StandardCharsets.US_ASCII))) {
            return Verdict.WRONG_AGENT;
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

    /**
     * After {@link #check} passed, once the body is read: OK when {@code body} (null: none) is the
     * one whose SHA-256 the header signs, else BODY_MISMATCH.
     */
    public static Verdict checkBody(String header, byte[] body) {
        String[] f = header == null ? new String[0] : header.split(":", -1);
        return f.length == 6 && MessageDigest.isEqual(f[4].getBytes(StandardCharsets.US_ASCII),
                (body == null ? EMPTY_BODY : sha256Hex(body)).getBytes(StandardCharsets.US_ASCII)) ? Verdict.OK : Verdict.BODY_MISMATCH;
    }

    /**
     * The answer header for a body answering the request of {@code nonce}: this agent's node name and
     * a tag over its id, that name, the nonce and the body. A responder's only.
     */
    public String answerHeader(String nonce, byte[] body) {
        if (nodeName == null) {
            throw new IllegalStateException("a requester's EndpointAuth answers nothing");
        }
        Self s = self();
        return VERSION + ":" + URLEncoder.encode(s.name(), StandardCharsets.UTF_8) + ":"
                + ProbeKey.hex(key.tag(answerText(s.id(), s.name(), nonce, body)));
    }

    /**
     * The node name of the agent that answered, when {@code header} authenticates {@code body} as the
     * answer of the agent of id {@code targetId} (the one the request was signed for) to the request
     * of {@code nonce}; else null: no answer of the key's, of another request, or of another agent
     * than the one asked (a relay).
     */
    public String answerer(String nonce, String targetId, byte[] body, String header) {
        if (header == null || header.length() > MAX_ANSWER_HEADER) {
            return null;
        }
        String[] f = header.split(":", -1);
        if (f.length != 3 || !f[0].equals(VERSION) || !f[2].matches(HEX32) || f[1].isEmpty()) {
            return null;
        }
        String name;
        try {
            name = URLDecoder.decode(f[1], StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return null;
        }
        if (!MessageDigest.isEqual(key.tag(answerText(targetId, name, nonce, body)), HexFormat.of().parseHex(f[2]))) {
            return null;
        }
        // the tag holds the id; the name must be that id's too, so that the name said is the answering agent's
        return agentId(key, name).equals(targetId) ? name : null;
    }

    static String sha256Hex(byte[] b) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 unavailable", e);
        }
    }

    /** The nonce of a well-formed request header (for the answer), else null. */
    public static String nonce(String header) {
        String[] f = header == null ? new String[0] : header.split(":", -1);
        return f.length == 6 ? f[2] : null;
    }

    /** The id a 401's {@link #AGENT_ID_HEADER} gives, when it is one; else null. */
    public static String announcedId(String value) {
        return value != null && value.matches(HEX32) ? value : null;
    }

    private static String answerText(String id, String name, String nonce, byte[] body) {
        return "fabricd-endpoint-answer\n" + VERSION + "\n" + id + "\n" + name + "\n" + nonce + "\n" + sha256Hex(body);
    }
}
