package io.fabricd.probes.udp;

import io.fabricd.natives.LibC;
import io.fabricd.probes.ProbePacket;
import io.fabricd.probes.ProbeTransport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;

/**
 * Probes over UDP: one connected socket per target (the kernel drops datagrams from anyone else)
 * and a large receive buffer so answers to a burst of probes are not dropped on this side. Kept
 * for many sessions to the same target, its source port stays the same, and the target's
 * responder gives it a socket of its own (UdpResponder).
 *
 * <p>Where the kernel stamps arrivals ({@link StampedSocket}, 64-bit Linux) a probe is timed from
 * just before its send to its answer's arrival at the socket, on CLOCK_REALTIME; elsewhere a NIO
 * channel with a selector for timed waits, timed on the monotonic clock when the receive returns.
 */
public final class UdpTransport implements ProbeTransport {
    private static final int RECEIVE_BUFFER = 4 << 20;

    private final InetSocketAddress target;
    private final StampedSocket stamped;
    private final DatagramChannel channel;
    private final Selector selector;

    public UdpTransport(LibC libc, InetSocketAddress target) throws IOException {
        this(libc, target, true);
    }

    /** @param kernelTimestamps false: the NIO channel even where the kernel could stamp arrivals (tests, comparisons) */
    public UdpTransport(LibC libc, InetSocketAddress target, boolean kernelTimestamps) throws IOException {
        this.target = target;
        if (kernelTimestamps && StampedSocket.unavailable(libc) == null) {
            stamped = StampedSocket.open(libc, target, RECEIVE_BUFFER);
            channel = null;
            selector = null;
            return;
        }
        stamped = null;
        channel = DatagramChannel.open();
        try {
            channel.setOption(StandardSocketOptions.SO_RCVBUF, RECEIVE_BUFFER);
            channel.connect(target);
            channel.configureBlocking(false);
            selector = Selector.open();
            channel.register(selector, SelectionKey.OP_READ);
        } catch (IOException e) {
            channel.close();
            throw e;
        }
    }

    public InetSocketAddress target() {
        return target;
    }

    /** True when answers carry the kernel's arrival time. */
    public boolean kernelTimestamps() {
        return stamped != null;
    }

    @Override
    public String name() {
        return "udp";
    }

    @Override
    public int maxSize() {
        return ProbePacket.MAX_SIZE;
    }

    @Override
    public long clock() {
        return stamped != null ? StampedSocket.now() : System.nanoTime();
    }

    @Override
    public long arrivalNanos() {
        return stamped != null ? stamped.arrival() : -1;
    }

    @Override
    public long sentNanos() {
        return stamped != null ? stamped.sent() : -1;
    }

    @Override
    public void send(byte[] packet, int length) throws IOException {
        if (stamped != null) {
            stamped.send(packet, length); // false: an earlier probe drew port unreachable; this one counts as lost
            return;
        }
        try {
            channel.write(ByteBuffer.wrap(packet, 0, length));
        } catch (PortUnreachableException e) {
            // an earlier probe drew ICMP port unreachable: nobody answers there; this probe counts as lost
        }
    }

    @Override
    public int receive(byte[] buf, long timeoutNanos) throws IOException {
        if (stamped != null) {
            return stamped.receive(buf, timeoutNanos);
        }
        ByteBuffer b = ByteBuffer.wrap(buf);
        int n = read(b);
        if (n >= 0 || timeoutNanos <= 0) {
            return n;
        }
        long ms = Math.max(1, timeoutNanos / 1_000_000);
        selector.selectedKeys().clear();
        if (selector.select(ms) == 0) {
            return -1;
        }
        return read(b);
    }

    private int read(ByteBuffer b) throws IOException {
        try {
            int n = channel.read(b);
            return n <= 0 ? -1 : n;
        } catch (PortUnreachableException e) {
            return -1;
        }
    }

    @Override
    public void close() {
        if (stamped != null) {
            stamped.close();
            return;
        }
        try {
            selector.close();
        } catch (IOException e) {
            // closing
        }
        try {
            channel.close();
        } catch (IOException e) {
            // closing
        }
    }
}
