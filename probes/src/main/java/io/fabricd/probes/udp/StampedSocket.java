package io.fabricd.probes.udp;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import com.sun.jna.Platform;
import io.fabricd.natives.Errno;
import io.fabricd.natives.LibC;
import io.fabricd.probes.ProbePacket;
import java.io.IOException;
import java.lang.reflect.Field;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.time.Instant;

/**
 * A connected UDP socket whose datagrams carry the kernel's arrival time ({@code SO_TIMESTAMPNS}:
 * the moment the packet reached the socket, CLOCK_REALTIME), which a NIO channel cannot give. A
 * probe's round trip is then timed from its send — the kernel's transmit stamp where it gives one
 * ({@link TransmitStamps}), else just before the send call — to that arrival: the wake-up of the
 * requester's thread and the JVM's receive path stay out of it. Through fabricd's libc binding;
 * Linux on a 64-bit CPU only ({@link #open} says why not elsewhere). Used by one thread at a time.
 */
public final class StampedSocket implements AutoCloseable {
    // include/uapi/asm-generic/socket.h, poll.h (x86_64 and arm64 alike)
    private static final int SO_TIMESTAMPNS = 35;
    private static final short POLLIN = 1;
    private static final short POLLERR = 8;
    static final int BUFFER = ProbePacket.MAX_SIZE + 64;
    static final int CONTROL = 128;

    private final LibC libc;
    private final int fd;
    private final StampedReceiver receiver;
    private final Memory pollfd = new Memory(8);
    /** Transmit stamps, where the kernel takes SO_TIMESTAMPING; null elsewhere. */
    private final TransmitStamps tx;
    private long sentAt = -1;
    private boolean closed;

    private StampedSocket(LibC libc, int fd, TransmitStamps tx) {
        this.libc = libc;
        this.receiver = new StampedReceiver(libc);
        this.fd = fd;
        this.tx = tx;
        pollfd.setInt(0, fd);
        pollfd.setShort(4, POLLIN);
    }

    /** Why kernel timestamps cannot be had here; null when they can. */
    public static String unavailable(LibC libc) {
        if (!Platform.isLinux() || !Platform.is64Bit()) {
            return "kernel timestamps are read on 64-bit Linux only";
        }
        return libc.unavailable();
    }

    /** A socket connected to {@code target}, with a receive buffer of {@code receiveBuffer} bytes. */
    static StampedSocket open(LibC libc, InetSocketAddress target, int receiveBuffer) throws IOException {
        String why = unavailable(libc);
        if (why != null) {
            throw new IOException(why);
        }
        if (target.isUnresolved()) {
            throw new IOException("unknown host " + target.getHostString());
        }
        byte[] addr = sockaddr(target);
        int s;
        try {
            s = libc.socket(addr.length == 16 ? LibC.AF_INET : LibC.AF_INET6, LibC.SOCK_DGRAM | LibC.SOCK_CLOEXEC, 0);
        } catch (LastErrorException e) {
            throw new IOException("socket: " + Errno.describe(e.getErrorCode()));
        }
        try {
            libc.setsockopt(s, LibC.SOL_SOCKET, SO_TIMESTAMPNS, 1);
            libc.setsockopt(s, LibC.SOL_SOCKET, LibC.SO_RCVBUF, receiveBuffer);
            libc.connect(s, addr);
        } catch (LastErrorException e) {
            libc.close(s);
            throw new IOException("UDP socket to " + target + ": " + Errno.describe(e.getErrorCode()));
        }
        TransmitStamps tx = null;
        try {
            libc.setsockopt(s, LibC.SOL_SOCKET, TransmitStamps.SO_TIMESTAMPING, TransmitStamps.FLAGS);
            tx = new TransmitStamps(libc);
        } catch (LastErrorException e) {
            // no transmit stamps (an old kernel, a filter): probes are timed from the clock read before the send
        }
        return new StampedSocket(libc, s, tx);
    }

    /** struct sockaddr_in or sockaddr_in6 of the target. */
    private static byte[] sockaddr(InetSocketAddress a) {
        byte[] ip = a.getAddress().getAddress();
        ByteBuffer b = ByteBuffer.allocate(a.getAddress() instanceof Inet4Address ? 16 : 28).order(ByteOrder.nativeOrder());
        b.putShort((short) (ip.length == 4 ? LibC.AF_INET : LibC.AF_INET6));
        b.order(ByteOrder.BIG_ENDIAN).putShort((short) a.getPort()).order(ByteOrder.nativeOrder());
        if (ip.length == 4) {
            b.put(ip);
        } else {
            b.putInt(0).put(ip); // sin6_flowinfo, sin6_addr; sin6_scope_id 0
        }
        return b.array();
    }

    /** Sends a datagram; false when an earlier one drew ICMP port unreachable (nobody listens there). */
    @SuppressWarnings("PMD.UnusedAssignment") // -1 stays when the send fails: no time of an earlier datagram
    boolean send(byte[] packet, int length) throws IOException {
        sentAt = -1;
        try {
            libc.send(fd, packet, length, 0);
            if (tx != null) {
                sentAt = tx.afterSend(fd);
            }
            return true;
        } catch (LastErrorException e) {
            if (Errno.ECONNREFUSED.is(e.getErrorCode())) {
                return false;
            }
            throw new IOException("send: " + Errno.describe(e.getErrorCode()));
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
            if (libc.poll(pollfd, 1, ms) <= 0) {
                return -1;
            }
            if ((pollfd.getShort(6) & POLLERR) != 0 && tx != null) {
                // a transmit stamp that came after its send wakes poll: take it off, wait once more
                tx.drain(fd);
                pollfd.setShort(6, (short) 0);
                if (libc.poll(pollfd, 1, ms) <= 0) {
                    return -1;
                }
            }
        } catch (LastErrorException e) {
            if (Errno.EINTR.is(e.getErrorCode())) {
                return -1;
            }
            throw new IOException("poll: " + Errno.describe(e.getErrorCode()));
        }
        return take(buf);
    }

    private int take(byte[] buf) throws IOException {
        int n = receiver.receive(fd, buf);
        return n == -2 ? -1 : n; // ICMP port unreachable: nobody answers there
    }

    /** The SCM_TIMESTAMPNS control message's time in ns since the epoch; -1 without one. */
    static long timestamp(Memory control, long length) {
        long o = controlData(control, length, LibC.SOL_SOCKET, SO_TIMESTAMPNS, 16);
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
    public static int timestamped(LibC libc, DatagramChannel channel) {
        if (unavailable(libc) != null) {
            return -1;
        }
        try {
            Field f = channel.getClass().getDeclaredField("fdVal");
            f.setAccessible(true);
            int fd = f.getInt(channel);
            libc.setsockopt(fd, LibC.SOL_SOCKET, SO_TIMESTAMPNS, 1);
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
    public static boolean connect(LibC libc, int fd, InetSocketAddress peer) {
        try {
            libc.connect(fd, sockaddr(peer));
            return true;
        } catch (LastErrorException e) {
            return false;
        }
    }

    /** Now on the kernel timestamps' clock (CLOCK_REALTIME), ns since the epoch. */
    public static long now() {
        Instant t = Instant.now();
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            libc.close(fd);
            receiver.close();
            pollfd.close();
            if (tx != null) {
                tx.close();
            }
        }
    }
}
