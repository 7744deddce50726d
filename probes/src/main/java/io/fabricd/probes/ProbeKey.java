package io.fabricd.probes;

import io.fabricd.natives.ProcessIdentity;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.logging.Logger;
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

    private static final Logger LOG = Logger.getLogger(ProbeKey.class.getName());

    /**
     * The key in a file (surrounding whitespace stripped: `openssl rand -hex 32 > key` works), as
     * {@link ProbeKeyFile} reads and checks it; a key that is short or repetitive is warned about once.
     */
    public static ProbeKey fromFile(Path file) {
        return checked(ProbeKeyFile.read(file, ProcessIdentity.current()), "probe key file " + file);
    }

    /** The key, with a warning when it is weak: under 32 characters, or fewer than 8 distinct ones. */
    private static ProbeKey checked(String text, String what) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        ProbeKey k = new ProbeKey(b);
        long distinct = text.chars().distinct().count();
        if (b.length < 32 || distinct < 8) {
            LOG.warning(what + " holds a weak key (" + b.length + " bytes, " + distinct + " distinct characters): "
                    + "use a random one, openssl rand -hex 32");
        }
        return k;
    }

    /** The key of {@code file} when given, else of {@link #ENV}; null when neither is set. */
    public static ProbeKey resolve(Path file) {
        if (file != null) {
            return fromFile(file);
        }
        String env = System.getenv(ENV);
        return env == null || env.isBlank() ? null : checked(env.strip(), ENV);
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
        return Arrays.copyOf(m.doFinal(), TAG_BYTES);
    }

    public byte[] tag(String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        return tag(b, 0, b.length);
    }

    /** Constant-time check of a tag stored at {@code data[tagOff, tagOff+TAG_BYTES)} over {@code data[off, off+len)}. */
    public boolean verify(byte[] data, int off, int len, int tagOff) {
        return MessageDigest.isEqual(tag(data, off, len), Arrays.copyOfRange(data, tagOff, tagOff + TAG_BYTES));
    }

    public static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }
}
