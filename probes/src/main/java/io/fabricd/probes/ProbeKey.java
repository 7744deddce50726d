package io.fabricd.probes;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The shared secret of a fabric's agents: probe packets and endpoint requests carry an HMAC-SHA256
 * of it (truncated to {@link #TAG_BYTES}); anything without a valid one is dropped and counted.
 * A {@code Mac} is not thread-safe, so each thread gets its own.
 */
public final class ProbeKey {
    public static final int TAG_BYTES = 16;
    /** Environment variable holding the key when no file is given. */
    public static final String ENV = "FABRICD_PROBE_KEY";
    private static final int MIN_KEY_BYTES = 16;

    private final byte[] key;
    private final ThreadLocal<Mac> mac;

    public ProbeKey(byte[] key) {
        if (key.length < MIN_KEY_BYTES) {
            throw new IllegalArgumentException("the probe key must have at least " + MIN_KEY_BYTES + " bytes");
        }
        this.key = key.clone();
        this.mac = ThreadLocal.withInitial(this::newMac);
    }

    /** The key in a file (surrounding whitespace stripped: `openssl rand -hex 32 > key` works). */
    public static ProbeKey fromFile(Path file) {
        try {
            String s = Files.readString(file, StandardCharsets.UTF_8).strip();
            if (s.isEmpty()) {
                throw new IllegalArgumentException("probe key file " + file + " is empty");
            }
            return new ProbeKey(s.getBytes(StandardCharsets.UTF_8));
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("cannot read probe key file " + file + ": " + e.getMessage());
        }
    }

    /** The key of {@code file} when given, else of {@link #ENV}; null when neither is set. */
    public static ProbeKey resolve(Path file) {
        if (file != null) {
            return fromFile(file);
        }
        String env = System.getenv(ENV);
        return env == null || env.isBlank() ? null : new ProbeKey(env.strip().getBytes(StandardCharsets.UTF_8));
    }

    private Mac newMac() {
        try {
            Mac m = Mac.getInstance("HmacSHA256");
            m.init(new SecretKeySpec(key, "HmacSHA256"));
            return m;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    /** The truncated tag of {@code data[off, off+len)}. */
    public byte[] tag(byte[] data, int off, int len) {
        Mac m = mac.get();
        m.update(data, off, len);
        byte[] full = m.doFinal();
        byte[] t = new byte[TAG_BYTES];
        System.arraycopy(full, 0, t, 0, TAG_BYTES);
        return t;
    }

    public byte[] tag(String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        return tag(b, 0, b.length);
    }

    /** Constant-time check of a tag stored at {@code data[tagOff, tagOff+TAG_BYTES)} over {@code data[off, off+len)}. */
    public boolean verify(byte[] data, int off, int len, int tagOff) {
        byte[] expected = tag(data, off, len);
        byte[] got = new byte[TAG_BYTES];
        System.arraycopy(data, tagOff, got, 0, TAG_BYTES);
        return MessageDigest.isEqual(expected, got);
    }

    static String hex(byte[] b) {
        return java.util.HexFormat.of().formatHex(b);
    }

    // ---------------------------------------------------------------- endpoint requests

    /** Header that authenticates an endpoint request: {@code <epoch seconds>:<hex tag of "path epoch">}. */
    public static final String AUTH_HEADER = "X-Fabricd-Probe-Auth";
    /** How far an endpoint request's timestamp may be from the responder's clock. */
    public static final long AUTH_WINDOW_SECONDS = 300;

    public String authHeader(String path, long epochSeconds) {
        return epochSeconds + ":" + hex(tag(path + " " + epochSeconds));
    }

    /** True when {@code header} authenticates a request of {@code path} at {@code nowEpochSeconds}. */
    public boolean checkAuthHeader(String header, String path, long nowEpochSeconds) {
        if (header == null) {
            return false;
        }
        int c = header.indexOf(':');
        if (c <= 0) {
            return false;
        }
        long ts;
        try {
            ts = Long.parseLong(header.substring(0, c));
        } catch (NumberFormatException e) {
            return false;
        }
        if (Math.abs(nowEpochSeconds - ts) > AUTH_WINDOW_SECONDS) {
            return false;
        }
        byte[] got;
        try {
            got = java.util.HexFormat.of().parseHex(header.substring(c + 1));
        } catch (IllegalArgumentException e) {
            return false;
        }
        return MessageDigest.isEqual(tag(path + " " + ts), got);
    }
}
