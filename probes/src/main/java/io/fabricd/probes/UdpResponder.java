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
 *
 * <p>Under a flood the responder's CPU is bounded too: it takes at most {@code WORK_FACTOR} times the
 * answer rate of packets per second off the socket (checking an authenticator costs an HMAC), and
 * otherwise waits; the kernel keeps what fits in the socket buffer and drops the rest, and those
 * drops are read from {@code /proc/net/udp} and counted as {@code overflow}. So a flood costs the
 * host at most about rate × 4 packets' work per second (issue 7, UdpFloodTest).
 */
public final class UdpResponder implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(UdpResponder.class.getName());

    private final DatagramSocket socket;
    private final ProbeKey key;
    private final RateLimiter limiter;
    /** Packets taken off the socket per second, whatever they turn out to be. */
    private final RateLimiter work;
    static final int WORK_FACTOR = 4;
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
        this.work = new RateLimiter(ratePerSecond * WORK_FACTOR, burst * WORK_FACTOR);
        this.stats = stats;
        int port = socket.getLocalPort();
        stats.kernelDrops(() -> UdpSocketDrops.of(port));
        this.thread = new Thread(this::serve, "fabricd-probe-udp");
        thread.setDaemon(true);
    }

    public UdpResponder start() {
        thread.start();
        return this;
    }

    /** The serving thread (tests measure its CPU time). */
    Thread thread() {
        return thread;
    }

    public int port() {
        return socket.getLocalPort();
    }

    private void serve() {
        byte[] buf = new byte[ProbePacket.MAX_SIZE];
        DatagramPacket in = new DatagramPacket(buf, buf.length);
        while (!closed) {
            long wait = work.nanosUntilPermit();
            if (wait > 0) {
                // over budget: leave the packets to the socket buffer (and the kernel's drop counter)
                stats.overBudget();
                java.util.concurrent.locks.LockSupport.parkNanos(Math.max(wait, 1_000_000L));
                continue;
            }
            work.tryAcquire();
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
        ReplayWindow.Verdict v = stats.replays.check(p.session(), p.sequence(), p.sentAtMillis(), System.currentTimeMillis());
        if (v != ReplayWindow.Verdict.OK) {
            stats.dropped(v == ReplayWindow.Verdict.STALE ? "stale" : "replayed");
            return -1;
        }
        if (!limiter.tryAcquire()) {
            stats.dropped("rate_limited");
            return -1;
        }
        new ProbePacket(ProbePacket.RESPONSE, p.sequence(), p.session(), p.t1(), System.nanoTime() - t0, p.size(),
                stats.overloaded(t0) ? ProbePacket.OVERLOADED : 0).encode(buf, key);
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
            if (reason.equals("rate_limited") || reason.equals("overflow")) {
                lastOwnDrop = System.nanoTime();
            }
        }

        /** Requests answered once: shared by every responder of the agent (UDP and verbs). */
        final ReplayWindow replays = new ReplayWindow();
        /** When this agent last dropped a genuine request itself (System.nanoTime; 0: never). */
        private volatile long lastOwnDrop;

        /**
         * Whether this agent dropped requests itself within the last 10 s (its rate limit) or left
         * them to the kernel under a flood (its work bound, where the socket buffer overflows), so
         * its answers say so and a requester does not blame the network for that loss.
         */
        boolean overloaded(long now) {
            long last = lastOwnDrop;
            return last != 0 && now - last < java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        }

        /** The responder left packets to the kernel (its work bound): some are dropped there. */
        void overBudget() {
            lastOwnDrop = System.nanoTime();
        }

        public long answeredCount() {
            return answered.get();
        }

        public long droppedCount(String reason) {
            if (reason.equals("overflow")) {
                long n = 0;
                for (java.util.function.LongSupplier k : kernel) {
                    n += k.getAsLong();
                }
                return n;
            }
            AtomicLong a = dropped.get(reason);
            return a == null ? 0 : a.get();
        }

        private final java.util.List<java.util.function.LongSupplier> kernel = new java.util.concurrent.CopyOnWriteArrayList<>();

        /** Where the kernel's drops of a responder's socket are read ("overflow"). */
        void kernelDrops(java.util.function.LongSupplier drops) {
            kernel.add(drops);
        }

    }
}
