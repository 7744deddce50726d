package io.fabricd.probes;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * fabricd's probe packet, the same over UDP and RDMA UD (big-endian):
 *
 * <pre>
 *  0 u32 magic "FBPR"      4 u8 version (2)      5 u8 type (1 request, 2 response)   6 u16 flags
 *  8 u64 sequence         16 u64 session (the requester's random id)
 * 24 u64 t1: requester's monotonic send time, echoed by the responder
 * 32 u64 request: the requester's wall clock when sent, epoch ms (a replay's age shows);
 *        response: the responder's processing time in ns (from receive to send)
 * 40 u32 packet size      44 ... zero padding ...      size-16: 16-byte HMAC-SHA256 tag of bytes [0, size-16)
 * </pre>
 *
 * A response has the request's size, so a large probe exercises the path's MTU both ways.
 */
public record ProbePacket(int type, long sequence, long session, long t1, long responderNanos, int size, int flags) {
    public static final int MAGIC = 0x46425052; // "FBPR"
    /** 2: requests carry their wall-clock send time, responses the OVERLOADED flag. */
    public static final int VERSION = 2;
    /**
     * Response flag: the responder dropped requests recently (its rate limit, its work bound under a
     * flood, or the kernel's socket buffer), so a loss seen by the requester may be the responder's,
     * not the network's.
     */
    public static final int OVERLOADED = 1;

    public ProbePacket(int type, long sequence, long session, long t1, long responderNanos, int size) {
        this(type, sequence, session, t1, responderNanos, size, 0);
    }

    /** A request's wall-clock send time (epoch ms): the field a response uses for its processing time. */
    public long sentAtMillis() {
        return responderNanos;
    }

    public boolean overloaded() {
        return (flags & OVERLOADED) != 0;
    }
    public static final int REQUEST = 1;
    public static final int RESPONSE = 2;
    public static final int HEADER_BYTES = 44;
    public static final int MIN_SIZE = HEADER_BYTES + ProbeKey.TAG_BYTES; // 60
    public static final int MAX_SIZE = 65_507; // largest UDP payload over IPv4

    /** Why a received packet was not accepted. */
    public enum Reject { MALFORMED, UNAUTHENTICATED }

    public static final class RejectedException extends Exception {
        private final Reject reason;

        RejectedException(Reject reason, String message) {
            super(message, null, false, false);
            this.reason = reason;
        }

        public Reject reason() {
            return reason;
        }
    }

    /** Writes the packet, tag included, into {@code out[0, size)}. */
    public void encode(byte[] out, ProbeKey key) {
        if (size < MIN_SIZE || size > out.length) {
            throw new IllegalArgumentException("probe size " + size + " outside " + MIN_SIZE + ".." + out.length);
        }
        ByteBuffer b = ByteBuffer.wrap(out, 0, size);
        b.putInt(MAGIC).put((byte) VERSION).put((byte) type).putShort((short) flags).putLong(sequence).putLong(session)
                .putLong(t1).putLong(responderNanos).putInt(size);
        Arrays.fill(out, HEADER_BYTES, size - ProbeKey.TAG_BYTES, (byte) 0);
        byte[] tag = key.tag(out, 0, size - ProbeKey.TAG_BYTES);
        System.arraycopy(tag, 0, out, size - ProbeKey.TAG_BYTES, ProbeKey.TAG_BYTES);
    }

    /** Parses and authenticates {@code in[0, length)}. */
    public static ProbePacket decode(byte[] in, int length, ProbeKey key) throws RejectedException {
        if (length < MIN_SIZE) {
            throw new RejectedException(Reject.MALFORMED, "short packet: " + length + " bytes");
        }
        ByteBuffer b = ByteBuffer.wrap(in, 0, length);
        if (b.getInt() != MAGIC) {
            throw new RejectedException(Reject.MALFORMED, "bad magic");
        }
        int version = b.get() & 0xff;
        int type = b.get() & 0xff;
        int flags = b.getShort() & 0xffff;
        if (version != VERSION || (type != REQUEST && type != RESPONSE)) {
            throw new RejectedException(Reject.MALFORMED, "version " + version + " type " + type);
        }
        long seq = b.getLong();
        long session = b.getLong();
        long t1 = b.getLong();
        long resp = b.getLong();
        int size = b.getInt();
        if (size != length) {
            throw new RejectedException(Reject.MALFORMED, "size field " + size + " but " + length + " bytes");
        }
        if (!key.verify(in, 0, length - ProbeKey.TAG_BYTES, length - ProbeKey.TAG_BYTES)) {
            throw new RejectedException(Reject.UNAUTHENTICATED, "bad authenticator");
        }
        return new ProbePacket(type, seq, session, t1, resp, size, flags);
    }
}
