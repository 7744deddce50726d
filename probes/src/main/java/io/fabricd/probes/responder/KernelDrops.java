package io.fabricd.probes.responder;

import io.fabricd.probes.udp.UdpSocketDrops;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The kernel's drops at the UDP responder's sockets (their receive buffers full): the
 * {@code overflow} count. Where the sockets are read through libc each datagram carries its
 * socket's drop counter ({@code SO_RXQ_OVFL}), and what it rose by since that socket's last datagram
 * is added up here: no file is read, and a peer socket's drops stay counted after it is closed
 * (they are counted up to its last datagram read; what a socket held when closed is lost uncounted).
 * Elsewhere (no libc) the counters are read from {@code /proc/net/udp} at a scrape, at most once per
 * {@link #PROCFS_EVERY_NANOS}, never per packet or per closed socket: a closed peer socket's drops
 * then leave the sum, and the count only holds at its highest.
 */
final class KernelDrops {
    static final long PROCFS_EVERY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final int port;
    private final boolean fromDatagrams;
    private final AtomicLong counted = new AtomicLong();
    private final AtomicLong procfsReads;
    /** When /proc/net/udp was read last: never, at first. */
    private long procfsAt = System.nanoTime() - PROCFS_EVERY_NANOS;
    private long procfsDrops;

    /**
     * @param fromDatagrams the responder's sockets report their drops with each datagram
     * @param procfsReads   counts the reads of /proc/net/udp (a stat: tests hold it to none per packet)
     */
    KernelDrops(int port, boolean fromDatagrams, AtomicLong procfsReads) {
        this.port = port;
        this.fromDatagrams = fromDatagrams;
        this.procfsReads = procfsReads;
    }

    boolean fromDatagrams() {
        return fromDatagrams;
    }

    /**
     * A datagram said its socket had dropped {@code u32} by then (wrapping at 2^32), where the socket's
     * last one said {@code last}: counts what it rose by, and returns {@code u32}, the socket's new last.
     */
    long reported(long last, long u32) {
        counted.addAndGet((u32 - last) & 0xffffffffL);
        return u32;
    }

    /** The drops so far (thread-safe: read at a scrape). */
    long total() {
        if (fromDatagrams) {
            return counted.get();
        }
        synchronized (this) {
            long now = System.nanoTime();
            if (now - procfsAt >= PROCFS_EVERY_NANOS) {
                procfsAt = now;
                procfsReads.incrementAndGet();
                procfsDrops = Math.max(procfsDrops, UdpSocketDrops.of(port));
            }
            return procfsDrops;
        }
    }
}
