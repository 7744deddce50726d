package io.fabricd.collectors.kernel.live;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import io.fabricd.natives.Errno;
import io.fabricd.natives.LibC;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal netlink client (linux include/uapi/linux/netlink.h) for rtnetlink DCB and RDMA netlink:
 * one request, then every reply message until NLMSG_DONE (dumps) or the first answer. Receives
 * time out after 2 s, so a silent kernel cannot hang a collection.
 */
final class Netlink implements AutoCloseable {
    static final int NETLINK_ROUTE = 0;
    static final int NETLINK_RDMA = 20;
    static final int NLM_F_REQUEST = 1;
    static final int NLM_F_DUMP = 0x300;
    static final int NLMSG_ERROR = 2;
    static final int NLMSG_DONE = 3;
    private static final int BUF = 64 * 1024;

    private final LibC libc;
    private final int fd;
    private int seq = 1;

    /** A netlink error answer (the kernel's negative errno). */
    static final class NetlinkError extends Exception {
        private static final long serialVersionUID = 1L;
        final int errno;

        NetlinkError(int errno) {
            super(Errno.describe(errno), null, false, false);
            this.errno = errno;
        }
    }

    Netlink(LibC libc, int protocol) throws LastErrorException {
        this.libc = libc;
        fd = libc.socket(LibC.AF_NETLINK, LibC.SOCK_RAW, protocol);
        Memory tv = new Memory(16); // struct timeval {2 s, 0}
        tv.setLong(0, 2);
        tv.setLong(8, 0);
        libc.setsockopt(fd, LibC.SOL_SOCKET, LibC.SO_RCVTIMEO, tv, 16);
    }

    /** Sends {@code type}/{@code flags} with {@code payload} (already aligned) and returns the payloads of every answer. */
    List<ByteBuffer> request(int type, int flags, byte[] payload) throws NetlinkError {
        int len = 16 + payload.length;
        Memory msg = new Memory(len);
        msg.setInt(0, len);
        msg.setShort(4, (short) type);
        msg.setShort(6, (short) flags);
        int mySeq = seq++;
        msg.setInt(8, mySeq);
        msg.setInt(12, 0);
        msg.write(16, payload, 0, payload.length);
        Memory addr = new Memory(12); // struct sockaddr_nl to the kernel
        addr.clear();
        addr.setShort(0, (short) LibC.AF_NETLINK);
        libc.sendto(fd, msg, len, 0, addr, 12);
        List<ByteBuffer> out = new ArrayList<>();
        Memory buf = new Memory(BUF);
        boolean dump = (flags & NLM_F_DUMP) == NLM_F_DUMP;
        while (true) {
            int n;
            try {
                n = (int) libc.recv(fd, buf, BUF, 0);
            } catch (LastErrorException e) {
                throw new NetlinkError(e.getErrorCode());
            }
            ByteBuffer bb = buf.getByteBuffer(0, n).order(ByteOrder.nativeOrder());
            int off = 0;
            while (off + 16 <= n) {
                int mlen = bb.getInt(off);
                int mtype = bb.getShort(off + 4) & 0xffff;
                int mseq = bb.getInt(off + 8);
                if (mlen < 16 || off + mlen > n) {
                    return out;
                }
                if (mseq == mySeq) {
                    if (mtype == NLMSG_DONE) {
                        // a dump that failed at its start reports the error in NLMSG_DONE's payload
                        int err = mlen >= 20 ? -bb.getInt(off + 16) : 0;
                        if (err > 0) {
                            throw new NetlinkError(err);
                        }
                        return out;
                    }
                    if (mtype == NLMSG_ERROR) {
                        int err = -bb.getInt(off + 16);
                        if (err != 0) {
                            throw new NetlinkError(err);
                        }
                        return out;
                    }
                    byte[] p = new byte[mlen - 16];
                    bb.get(off + 16, p);
                    out.add(ByteBuffer.wrap(p).order(ByteOrder.nativeOrder()));
                    if (!dump) {
                        return out;
                    }
                }
                off += align(mlen);
            }
        }
    }

    static int align(int n) {
        return (n + 3) & ~3;
    }

    /** Appends an attribute (struct nlattr + value, padded). */
    static void attr(ByteArrayOutputStream out, int type, byte[] value) {
        int len = 4 + value.length;
        ByteBuffer h = ByteBuffer.allocate(4).order(ByteOrder.nativeOrder());
        h.putShort((short) len).putShort((short) type);
        out.writeBytes(h.array());
        out.writeBytes(value);
        for (int i = len; i < align(len); i++) {
            out.write(0);
        }
    }

    /** Walks attributes in {@code b} from {@code start} to {@code end}: calls visitor(type, valueOffset, valueLength). */
    interface AttrVisitor {
        void visit(int type, int off, int len);
    }

    static void attrs(ByteBuffer b, int start, int end, AttrVisitor v) {
        int off = start;
        while (off + 4 <= end) {
            int len = b.getShort(off) & 0xffff;
            int type = b.getShort(off + 2) & 0x3fff; // drop NLA_F_NESTED / NLA_F_NET_BYTEORDER
            if (len < 4 || off + len > end) {
                return;
            }
            v.visit(type, off + 4, len - 4);
            off += align(len);
        }
    }

    static String string(ByteBuffer b, int off, int len) {
        int end = off;
        while (end < off + len && b.get(end) != 0) {
            end++;
        }
        byte[] s = new byte[end - off];
        b.get(off, s);
        return new String(s, StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        libc.close(fd);
    }
}
