package io.fabricd.probes.responder;

import io.fabricd.natives.LibC;
import io.fabricd.probes.udp.StampedReceiver;
import io.fabricd.probes.udp.StampedSocket;
import java.io.IOException;
import java.net.PortUnreachableException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;

/** One socket of the UDP responder and its budget: the shared one, or a known peer's. */
final class ResponderSource {
    final DatagramChannel channel;
    final SocketAddress peer;
    final ResponderBudget budget;
    /** The channel's descriptor with kernel arrival timestamps on; -1 without them. */
    final int fd;
    /** Where its datagrams' drop counters go; null when they carry none. */
    private final KernelDrops drops;
    /** The socket's drop counter at its last datagram that carried one (u32, {@link KernelDrops}). */
    private long kernelDrops;
    SelectionKey key;
    long lastUsed;
    /** The last datagram's source, and when it arrived on the monotonic clock. */
    SocketAddress from;
    long arrivedNanos;

    /** @param drops where the kernel's drops are counted from datagrams; null: not from datagrams */
    ResponderSource(LibC libc, DatagramChannel channel, SocketAddress peer, ResponderBudget budget, KernelDrops drops) {
        this.channel = channel;
        this.peer = peer;
        this.budget = budget;
        this.fd = StampedSocket.timestamped(libc, channel);
        this.drops = fd >= 0 && drops != null && StampedReceiver.countDrops(libc, fd) ? drops : null;
        this.lastUsed = System.nanoTime();
    }

    /** Whether its datagrams carry the socket's drop counter. */
    boolean countsDrops() {
        return drops != null;
    }

    /**
     * Takes one datagram into {@code buf} (through {@code receiver} with its kernel arrival time
     * where {@link #fd} allows, else through the channel and {@code bb}, which wraps {@code buf}):
     * its length, with {@link #from} and {@link #arrivedNanos} set; -1 when none waits; -2 for an
     * earlier answer's ICMP port unreachable or a datagram without a source.
     */
    int receive(byte[] buf, ByteBuffer bb, StampedReceiver receiver) throws IOException {
        if (fd >= 0 && receiver != null) {
            int n = receiver.receive(fd, buf);
            if (n < 0) {
                return n;
            }
            if (drops != null && receiver.drops() >= 0) {
                kernelDrops = drops.reported(kernelDrops, receiver.drops());
            }
            // how long ago it arrived, by the kernel's clock (at most 1 s: a clock step is not a hold
            // time), read before the monotonic clock: a pause between the two readings then shortens
            // the hold, and the requester's RTT can only come out longer, never shorter than it was
            long real = StampedSocket.now();
            long now = System.nanoTime();
            long arrival = receiver.arrival();
            arrivedNanos = arrival < 0 ? now : now - Math.max(0, Math.min(real - arrival, 1_000_000_000L));
            // the real source even on a peer's connected socket: a datagram it took before it was
            // connected may be another's
            from = receiver.from() != null ? receiver.from() : peer;
            lastUsed = now;
            return from == null ? -2 : n;
        }
        bb.clear();
        try {
            from = channel.receive(bb);
        } catch (PortUnreachableException e) {
            return -2;
        }
        if (from == null) {
            return -1;
        }
        arrivedNanos = System.nanoTime();
        lastUsed = arrivedNanos;
        return bb.position();
    }

    /** Closes a channel, ignoring a failure to (the responder is closing it or giving it up). */
    static void closeQuietly(DatagramChannel ch) {
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException e) {
                // closing
            }
        }
    }
}
