package io.fabricd.probes;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;

/**
 * Probes over UDP: one connected, non-blocking channel per target (the kernel drops datagrams
 * from anyone else), a selector for timed waits, and a large receive buffer so answers to a burst
 * of probes are not dropped on this side. Kept for many sessions to the same target, its source
 * port stays the same, and the target's responder gives it a socket of its own (UdpResponder).
 */
public final class UdpTransport implements ProbeTransport {
    private final InetSocketAddress target;
    private final DatagramChannel channel;
    private final Selector selector;

    public UdpTransport(InetSocketAddress target) throws IOException {
        this.target = target;
        channel = DatagramChannel.open();
        try {
            channel.setOption(StandardSocketOptions.SO_RCVBUF, 4 << 20);
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

    @Override
    public String name() {
        return "udp";
    }

    @Override
    public int maxSize() {
        return ProbePacket.MAX_SIZE;
    }

    @Override
    public void send(byte[] packet, int length) throws IOException {
        try {
            channel.write(ByteBuffer.wrap(packet, 0, length));
        } catch (PortUnreachableException e) {
            // an earlier probe drew ICMP port unreachable: nobody answers there; this probe counts as lost
        }
    }

    @Override
    public int receive(byte[] buf, long timeoutNanos) throws IOException {
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
