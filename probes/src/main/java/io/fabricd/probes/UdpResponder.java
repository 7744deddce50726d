package io.fabricd.probes;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Answers probe requests on a UDP port at once, with its own processing time in the answer. Packets
 * that are malformed or carry no valid authenticator are dropped and counted; answers are
 * rate-limited (a token bucket) so the responder cannot be turned into a flood source, and the
 * excess is dropped and counted. One daemon thread; never the event loop.
 */
public final class UdpResponder implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(UdpResponder.class.getName());

    private final DatagramSocket socket;
    private final ProbeKey key;
    private final RateLimiter limiter;
    private final Thread thread;
    private final ResponderStats stats;
    private volatile boolean closed;

    public UdpResponder(InetSocketAddress bind, ProbeKey key, double ratePerSecond, int burst, ResponderStats stats)
            throws SocketException {
        this.socket = new DatagramSocket(bind);
        // room for bursts while this thread is descheduled (the kernel caps it at net.core.rmem_max)
        socket.setReceiveBufferSize(4 << 20);
        this.key = key;
        this.limiter = new RateLimiter(ratePerSecond, burst);
        this.stats = stats;
        this.thread = new Thread(this::serve, "fabricd-probe-udp");
        thread.setDaemon(true);
    }

    public UdpResponder start() {
        thread.start();
        return this;
    }

    public int port() {
        return socket.getLocalPort();
    }

    private void serve() {
        byte[] buf = new byte[ProbePacket.MAX_SIZE];
        DatagramPacket in = new DatagramPacket(buf, buf.length);
        while (!closed) {
            try {
                in.setLength(buf.length);
                socket.receive(in);
                int size = answer(buf, in.getLength(), System.nanoTime(), key, limiter, stats);
                if (size < 0) {
                    continue;
                }
                socket.send(new DatagramPacket(buf, size, in.getSocketAddress()));
            } catch (IOException e) {
                if (!closed) {
                    LOG.log(Level.FINE, "probe responder: " + e.getMessage());
                }
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        socket.close();
    }

    /**
     * What every responder does with a received packet {@code buf[0, n)}, received at {@code t0}
     * (nanoTime): authenticate it, rate-limit, count, and turn it in place into the answer. Returns
     * the answer's size, or -1 when the packet is dropped (and counted).
     */
    static int answer(byte[] buf, int n, long t0, ProbeKey key, RateLimiter limiter, ResponderStats stats) {
        ProbePacket p;
        try {
            p = ProbePacket.decode(buf, n, key);
        } catch (ProbePacket.RejectedException e) {
            stats.dropped(e.reason() == ProbePacket.Reject.UNAUTHENTICATED ? "unauthenticated" : "malformed");
            return -1;
        }
        if (p.type() != ProbePacket.REQUEST) {
            stats.dropped("malformed");
            return -1;
        }
        if (!limiter.tryAcquire()) {
            stats.dropped("rate_limited");
            return -1;
        }
        new ProbePacket(ProbePacket.RESPONSE, p.sequence(), p.session(), p.t1(), System.nanoTime() - t0, p.size()).encode(buf, key);
        stats.answered();
        return p.size();
    }

    /** What a responder did with what it received (thread-safe counters). */
    public static final class ResponderStats {
        private final AtomicLong answered = new AtomicLong();
        private final java.util.concurrent.ConcurrentHashMap<String, AtomicLong> dropped = new java.util.concurrent.ConcurrentHashMap<>();

        public void answered() {
            answered.incrementAndGet();
        }

        public void dropped(String reason) {
            dropped.computeIfAbsent(reason, r -> new AtomicLong()).incrementAndGet();
        }

        public long answeredCount() {
            return answered.get();
        }

        public long droppedCount(String reason) {
            AtomicLong a = dropped.get(reason);
            return a == null ? 0 : a.get();
        }

    }
}
