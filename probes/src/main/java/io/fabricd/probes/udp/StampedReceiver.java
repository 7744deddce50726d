package io.fabricd.probes.udp;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import io.fabricd.natives.Errno;
import io.fabricd.natives.LibC;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;

/**
 * Receives one datagram at a time from a socket with kernel arrival timestamps on (a
 * {@link StampedSocket}, or a descriptor {@link StampedSocket#timestamped} returned), with its
 * source and its arrival time, through libc's {@code recvmsg}. Its buffers are its own; one thread
 * uses it.
 */
public final class StampedReceiver implements AutoCloseable {
    /** include/uapi/asm-generic/socket.h: each datagram carries its socket's drop count when it was queued. */
    private static final int SO_RXQ_OVFL = 40;
    private final LibC libc;
    private final Memory data = new Memory(StampedSocket.BUFFER);
    private final Memory control = new Memory(StampedSocket.CONTROL);
    private final Memory name = new Memory(128);
    private final Memory iov = new Memory(16);
    private final Memory msg = new Memory(56);
    private SocketAddress from;
    private long arrival;
    private long drops;

    public StampedReceiver(LibC libc) {
        this.libc = libc;
        iov.setPointer(0, data);
        iov.setLong(8, StampedSocket.BUFFER);
        msg.clear();
        msg.setPointer(0, name);
        msg.setPointer(16, iov);
        msg.setLong(24, 1);
        msg.setPointer(32, control);
    }

    /**
     * A datagram waiting on {@code fd}, copied into {@code buf}: its length; -1 when none waits,
     * -2 when the socket reported an earlier answer's ICMP port unreachable instead.
     */
    public int receive(int fd, byte[] buf) throws IOException {
        msg.setInt(8, 128);
        msg.setLong(40, StampedSocket.CONTROL);
        msg.setInt(48, 0);
        long n;
        try {
            n = libc.recvmsg(fd, msg, LibC.MSG_DONTWAIT);
        } catch (LastErrorException e) {
            int err = e.getErrorCode();
            if (Errno.EAGAIN.is(err) || Errno.EINTR.is(err)) {
                return -1;
            }
            if (Errno.ECONNREFUSED.is(err)) {
                return -2;
            }
            throw new IOException("recvmsg: " + Errno.describe(err));
        }
        int len = (int) Math.min(n, buf.length);
        data.read(0, buf, 0, len);
        arrival = StampedSocket.timestamp(control, msg.getLong(40));
        from = source(name, msg.getInt(8));
        long o = StampedSocket.controlData(control, msg.getLong(40), LibC.SOL_SOCKET, SO_RXQ_OVFL, 4);
        drops = o < 0 ? -1 : control.getInt(o) & 0xffffffffL;
        return len;
    }

    /**
     * Turns on {@link #drops()} for the socket under {@code fd}: false when the kernel refused
     * ({@code SO_RXQ_OVFL}, Linux 2.6.33 and later).
     */
    public static boolean countDrops(LibC libc, int fd) {
        try {
            libc.setsockopt(fd, LibC.SOL_SOCKET, SO_RXQ_OVFL, 1);
            return true;
        } catch (LastErrorException e) {
            return false;
        }
    }

    /**
     * How many datagrams the socket had dropped (its buffer full) when the last datagram was
     * queued, as an unsigned 32-bit count that wraps; -1 when it said none (none dropped yet, or
     * {@link #countDrops} is off). The same counter as the last column of /proc/net/udp.
     */
    public long drops() {
        return drops;
    }

    /** The last datagram's source (null when the kernel gave none). */
    public SocketAddress from() {
        return from;
    }

    /** The last datagram's kernel arrival time, ns since the epoch; -1 without one. */
    public long arrival() {
        return arrival;
    }

    private static SocketAddress source(Memory name, int length) throws UnknownHostException {
        int family = name.getShort(0);
        int port = ((name.getByte(2) & 0xff) << 8) | (name.getByte(3) & 0xff);
        if (family == LibC.AF_INET && length >= 8) {
            return new InetSocketAddress(InetAddress.getByAddress(name.getByteArray(4, 4)), port);
        }
        if (family == LibC.AF_INET6 && length >= 24) {
            return new InetSocketAddress(InetAddress.getByAddress(name.getByteArray(8, 16)), port);
        }
        return null;
    }

    @Override
    public void close() {
        data.close();
        control.close();
        name.close();
        iov.close();
        msg.close();
    }
}
