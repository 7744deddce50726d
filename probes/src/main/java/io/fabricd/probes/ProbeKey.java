package io.fabricd.probes;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Set;
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

    /** Largest key file read: a key is a line of text, not a file to stream. */
    private static final long MAX_KEY_FILE_BYTES = 4096;
    private static final Logger LOG = Logger.getLogger(ProbeKey.class.getName());

    /**
     * The key in a file (surrounding whitespace stripped: `openssl rand -hex 32 > key` works). A
     * folder, a pipe (its read would wait for a writer forever) or a file over 4 KiB is refused; a
     * file others may read, or a key that is short or repetitive, is warned about once.
     */
    public static ProbeKey fromFile(Path file) {
        String what = "probe key file " + file;
        if (Files.isDirectory(file)) {
            throw new IllegalArgumentException(what + " is a folder, not a file");
        }
        if (!Files.exists(file)) {
            throw new IllegalArgumentException(what + " does not exist");
        }
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException(what + " is not a regular file (a pipe or device cannot be read at start)");
        }
        try {
            if (Files.size(file) > MAX_KEY_FILE_BYTES) {
                throw new IllegalArgumentException(what + " is larger than " + MAX_KEY_FILE_BYTES + " bytes: not a key");
            }
            String s = Files.readString(file, StandardCharsets.UTF_8).strip();
            if (s.isEmpty()) {
                throw new IllegalArgumentException(what + " is empty");
            }
            warnIfExposed(file);
            return checked(s, what);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + what + ": " + e.getMessage());
        }
    }

    /** A warning when users other than the owner may read the key (a Secret mounted 0644, a file made with umask 022). */
    private static void warnIfExposed(Path file) {
        try {
            Set<PosixFilePermission> p = Files.getPosixFilePermissions(file);
            if (p.contains(PosixFilePermission.OTHERS_READ)
                    || p.contains(PosixFilePermission.GROUP_READ)) {
                LOG.warning("probe key file " + file + " can be read by other users ("
                        + PosixFilePermissions.toString(p) + "): anyone who reads it can forge probes and "
                        + "endpoint answers; chmod 600 it (the Helm chart mounts it 0400)");
            }
        } catch (IOException | UnsupportedOperationException e) {
            // no POSIX permissions to judge
        }
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

    public static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }
}
