package io.fabricd.probes;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.NativeLong;
import com.sun.jna.Platform;
import com.sun.jna.Pointer;
import java.io.IOException;
import java.lang.reflect.Field;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Instant;

/**
 * A connected UDP socket whose datagrams carry the kernel's arrival time ({@code SO_TIMESTAMPNS}:
 * the moment the packet reached the socket, CLOCK_REALTIME), which a NIO channel cannot give. A
 * probe's round trip is then timed from its send — the kernel's transmit stamp where it gives one
 * ({@link TransmitStamps}), else just before the send call — to that arrival: the wake-up of the
 * requester's thread and the JVM's receive path stay out of it. libc through JNA's direct mapping;
 * Linux on a 64-bit CPU only ({@link #open} says why not elsewhere). Used by one thread at a time.
 */
final class StampedSocket implements AutoCloseable {
    // include/uapi/asm-generic/socket.h, linux/socket.h, poll.h, errno.h (x86_64 and arm64 alike)
    static final int AF_INET = 2;
    static final int AF_INET6 = 10;
    private static final int SOCK_DGRAM = 2;
    private static final int SOCK_CLOEXEC = 0x80000;
    static final int SOL_SOCKET = 1;
    private static final int SO_RCVBUF = 8;
    private static final int SO_TIMESTAMPNS = 35;
    static final int MSG_DONTWAIT = 0x40;
    private static final short POLLIN = 1;
    private static final short POLLERR = 8;
    static final int EINTR = 4;
    static final int EAGAIN = 11;
    static final int ECONNREFUSED = 111;
    static final int BUFFER = ProbePacket.MAX_SIZE + 64;
    static final int CONTROL = 128;
    private static final String UNAVAILABLE;

    static {
        String why = null;
        if (!Platform.isLinux() || !Platform.is64Bit()) {
            why = "kernel timestamps are read on 64-bit Linux only";
        } else {
            try {
                Native.register(StampedSocket.class, Platform.C_LIBRARY_NAME);
            } catch (Throwable e) { // UnsatisfiedLinkError, or JNA's own native part missing
                why = "libc through JNA: " + e;
            }
        }
        UNAVAILABLE = why;
    }

    private static native int socket(int domain, int type, int protocol) throws LastErrorException;

    private static native int setsockopt(int fd, int level, int name, int[] value, int len) throws LastErrorException;

    private static native int connect(int fd, byte[] addr, int len) throws LastErrorException;

    private static native NativeLong send(int fd, byte[] buf, NativeLong len, int flags) throws LastErrorException;

    static native NativeLong recvmsg(int fd, Pointer msg, int flags) throws LastErrorException;

    private static native int poll(Pointer fds, NativeLong nfds, int timeoutMs) throws LastErrorException;

    private static native int close(int fd);

    private final int fd;
    private final StampedReceiver receiver = new StampedReceiver();
    private final Memory pollfd = new Memory(8);
    /** Transmit stamps, where the kernel takes SO_TIMESTAMPING; null elsewhere. */
    private final TransmitStamps tx;
    private long sentAt = -1;
    private boolean closed;

    private StampedSocket(int fd, TransmitStamps tx) {
        this.fd = fd;
        this.tx = tx;
        pollfd.setInt(0, fd);
        pollfd.setShort(4, POLLIN);
    }

    /** Why kernel timestamps cannot be had here; null when they can. */
    static String unavailable() {
        return UNAVAILABLE;
    }

    /** A socket connected to {@code target}, with a receive buffer of {@code receiveBuffer} bytes. */
    static StampedSocket open(InetSocketAddress target, int receiveBuffer) throws IOException {
        if (UNAVAILABLE != null) {
            throw new IOException(UNAVAILABLE);
        }
        if (target.isUnresolved()) {
            throw new IOException("unknown host " + target.getHostString());
        }
        byte[] addr = sockaddr(target);
        int s;
        try {
            s = socket(addr.length == 16 ? AF_INET : AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        } catch (LastErrorException e) {
            throw new IOException("socket: errno " + e.getErrorCode());
        }
        try {
            setsockopt(s, SOL_SOCKET, SO_TIMESTAMPNS, new int[] {1}, 4);
            setsockopt(s, SOL_SOCKET, SO_RCVBUF, new int[] {receiveBuffer}, 4);
            connect(s, addr, addr.length);
        } catch (LastErrorException e) {
            close(s);
            throw new IOException("UDP socket to " + target + ": errno " + e.getErrorCode());
        }
        TransmitStamps tx = null;
        try {
            setsockopt(s, SOL_SOCKET, TransmitStamps.SO_TIMESTAMPING, new int[] {TransmitStamps.FLAGS}, 4);
            tx = new TransmitStamps();
        } catch (LastErrorException e) {
            // no transmit stamps (an old kernel, a filter): probes are timed from the clock read before the send
        }
        return new StampedSocket(s, tx);
    }

    /** struct sockaddr_in or sockaddr_in6 of the target. */
    private static byte[] sockaddr(InetSocketAddress a) {
        byte[] ip = a.getAddress().getAddress();
        ByteBuffer b = ByteBuffer.allocate(a.getAddress() instanceof Inet4Address ? 16 : 28).order(ByteOrder.nativeOrder());
        b.putShort((short) (ip.length == 4 ? AF_INET : AF_INET6));
        b.order(ByteOrder.BIG_ENDIAN).putShort((short) a.getPort()).order(ByteOrder.nativeOrder());
        if (ip.length == 4) {
            b.put(ip);
        } else {
            b.putInt(0).put(ip); // sin6_flowinfo, sin6_addr; sin6_scope_id 0
        }
        return b.array();
    }

    /** Sends a datagram; false when an earlier one drew ICMP port unreachable (nobody listens there). */
    boolean send(byte[] packet, int length) throws IOException {
        sentAt = -1;
        try {
            send(fd, packet, new NativeLong(length), 0);
            if (tx != null) {
                sentAt = tx.afterSend(fd);
            }
            return true;
        } catch (LastErrorException e) {
            if (e.getErrorCode() == ECONNREFUSED) {
                return false;
            }
            throw new IOException("send: errno " + e.getErrorCode());
        }
    }

    /** The kernel's transmit time of the last datagram sent, ns since the epoch; -1 when it gave none. */
    long sent() {
        return sentAt;
    }

    /**
     * Waits up to {@code timeoutNanos} for a datagram, copies it into {@code buf} and returns its
     * length ({@link #arrival()} is then its kernel timestamp); -1 when none came in time.
     */
    int receive(byte[] buf, long timeoutNanos) throws IOException {
        int n = take(buf);
        if (n >= 0 || timeoutNanos <= 0) {
            return n;
        }
        int ms = (int) Math.min(Integer.MAX_VALUE, Math.max(1, (timeoutNanos + 999_999) / 1_000_000));
        try {
            pollfd.setShort(6, (short) 0);
            if (poll(pollfd, new NativeLong(1), ms) <= 0) {
                return -1;
            }
            if ((pollfd.getShort(6) & POLLERR) != 0 && tx != null) {
                // a transmit stamp that came after its send wakes poll: take it off, wait once more
                tx.drain(fd);
                pollfd.setShort(6, (short) 0);
                if (poll(pollfd, new NativeLong(1), ms) <= 0) {
                    return -1;
                }
            }
        } catch (LastErrorException e) {
            if (e.getErrorCode() == EINTR) {
                return -1;
            }
            throw new IOException("poll: errno " + e.getErrorCode());
        }
        return take(buf);
    }

    private int take(byte[] buf) throws IOException {
        int n = receiver.receive(fd, buf);
        return n == -2 ? -1 : n; // ICMP port unreachable: nobody answers there
    }

    /** The SCM_TIMESTAMPNS control message's time in ns since the epoch; -1 without one. */
    static long timestamp(Memory control, long length) {
        long o = controlData(control, length, SOL_SOCKET, SO_TIMESTAMPNS, 16);
        return o < 0 ? -1 : timespec(control, o);
    }

    /**
     * Where the data of the control message of {@code level} and {@code type} begins in a
     * recvmsg's control buffer of {@code length} bytes, when it has at least {@code size} bytes; -1
     * when there is none.
     */
    static long controlData(Memory control, long length, int level, int type, int size) {
        long o = 0;
        while (o + 16 <= length) {
            long cmsgLen = control.getLong(o);
            if (cmsgLen < 16) {
                break;
            }
            if (control.getInt(o + 8) == level && control.getInt(o + 12) == type && o + 16 + size <= length) {
                return o + 16;
            }
            o += (cmsgLen + 7) & ~7L;
        }
        return -1;
    }

    /** A struct timespec at {@code offset} as ns since the epoch. */
    static long timespec(Memory m, long offset) {
        return m.getLong(offset) * 1_000_000_000L + m.getLong(offset + 8);
    }

    /** The kernel's arrival time of the last datagram received, ns since the epoch; -1 when it gave none. */
    long arrival() {
        return receiver.arrival();
    }

    /**
     * The file descriptor under a NIO datagram channel, with kernel arrival timestamps turned on;
     * -1 where it cannot be had: the JDK's internals are closed to fabricd (the agent's jar opens
     * {@code java.base/sun.nio.ch}; a plain class path needs {@code --add-opens
     * java.base/sun.nio.ch=ALL-UNNAMED}), or no libc here.
     */
    static int timestamped(DatagramChannel channel) {
        if (UNAVAILABLE != null) {
            return -1;
        }
        try {
            Field f = channel.getClass().getDeclaredField("fdVal");
            f.setAccessible(true);
            int fd = f.getInt(channel);
            setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, new int[] {1}, 4);
            return fd;
        } catch (ReflectiveOperationException | RuntimeException e) { // InaccessibleObjectException, LastErrorException
            return -1;
        }
    }

    /**
     * Connects the socket under {@code fd} (from {@link #timestamped}) to {@code peer} in the kernel
     * alone: unlike {@link DatagramChannel#connect}, which afterwards reads and discards whatever the
     * socket holds, nothing that arrived before is lost. False when the kernel refused.
     */
    static boolean connect(int fd, InetSocketAddress peer) {
        byte[] addr = sockaddr(peer);
        try {
            connect(fd, addr, addr.length);
            return true;
        } catch (LastErrorException e) {
            return false;
        }
    }

    /** Now on the kernel timestamps' clock (CLOCK_REALTIME), ns since the epoch. */
    static long now() {
        Instant t = Instant.now();
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            close(fd);
            receiver.close();
            pollfd.close();
            if (tx != null) {
                tx.close();
            }
        }
    }
}
