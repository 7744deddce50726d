package io.fabricd.probes.responder;

import io.fabricd.natives.LibC;
import io.fabricd.probes.ProbeKey;
import io.fabricd.probes.ProbePacket;
import io.fabricd.probes.udp.StampedReceiver;
import io.fabricd.probes.udp.StampedSocket;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Answers probe requests on a UDP port at once, with its own processing time in the answer. Packets
 * that are malformed or carry no valid authenticator are dropped and counted; answers are
 * rate-limited (a token bucket) so the responder cannot be turned into a flood source, and the
 * excess is dropped and counted. One daemon thread; never the event loop.
 *
 * <p><b>A budget per source, peers first.</b> The responder cannot choose which datagrams of one
 * socket it reads, so it lets the kernel sort them: once a source (address and port) has had two
 * requests of a session answered ({@link PeerAdmission}: authenticated, fresh, not replays, and
 * the session from no other source; new sockets at a bounded rate), the responder opens a socket
 * of its own for it — bound to the probe port with {@code SO_REUSEPORT} and connected to that
 * source, which Linux prefers over the shared socket
 * for that 4-tuple (since 5.4) — with its own receive buffer, answer budget and work budget. A
 * flood at the port then fills the shared socket and leaves the peers' sockets alone. Requesters
 * keep one source port per peer for that reason ({@code PeerTransports}). At most {@link #MAX_PEERS}
 * such sockets, the least recently used closed for a new one; one idle for {@link #PEER_IDLE_NANOS}
 * is closed.
 *
 * <p>Under a flood the responder's CPU is bounded too: it takes at most {@code WORK_FACTOR} times the
 * answer rate of packets per second off each socket (checking an authenticator costs an HMAC), and
 * otherwise leaves them; the kernel keeps what fits in the socket buffer and drops the rest, and
 * those drops are counted as {@code overflow} ({@link KernelDrops}: from the datagrams, /proc/net/udp
 * never per packet). A stale or replayed request costs a header read, not an HMAC
 * ({@link ResponderAnswer#screen}), and never a socket (UdpFloodTest, ReplayStormTest).
 *
 * <p>The hold time in an answer runs from the request's kernel arrival stamp where the socket can be
 * read through libc ({@link StampedSocket#timestamped}): this thread's wake-up is then in it. Each
 * answered request's hold, to the answer's send, goes to {@link ResponderStats#onHold} too: the
 * host's own share of its peers' round trips, which a starved or stalling host makes milliseconds.
 */
public final class UdpResponder implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(UdpResponder.class.getName());
    static final int WORK_FACTOR = 4;
    /** Sockets of known peers at most; beyond it the least recently used one is closed. */
    static final int MAX_PEERS = 512;
    static final long PEER_IDLE_NANOS = TimeUnit.MINUTES.toNanos(2);
    /** Packets taken from one socket before the others get their turn. */
    private static final int BATCH = 16;

    private final ProbeKey key;
    private final double rate;
    private final int burst;
    private final ResponderStats stats;
    private final Selector selector;
    private final ResponderSource shared;
    private final InetSocketAddress local;
    private final boolean perPeer;
    private final Map<SocketAddress, ResponderSource> peers = new HashMap<>();
    private final List<ResponderSource> paused = new ArrayList<>();
    private final Thread thread;
    private final KernelDrops drops;
    private final PeerAdmission admission = new PeerAdmission();
    private volatile boolean closed;
    /** Receives with the kernel's arrival times where it can ({@link StampedSocket}); null elsewhere. */
    private final StampedReceiver receiver;
    private final LibC libc;

    public UdpResponder(LibC libc, InetSocketAddress bind, ProbeKey key, double ratePerSecond, int burst, ResponderStats stats)
            throws IOException {
        this.libc = libc;
        this.receiver = StampedSocket.unavailable(libc) == null ? new StampedReceiver(libc) : null;
        this.key = key;
        this.rate = ratePerSecond;
        this.burst = burst;
        this.stats = stats;
        DatagramChannel ch = ResponderSockets.shared(bind);
        perPeer = ResponderSockets.perPeer(ch);
        try {
            this.local = (InetSocketAddress) ch.getLocalAddress();
            this.selector = Selector.open();
        } catch (IOException e) {
            ch.close();
            throw e;
        }
        KernelDrops counted = new KernelDrops(local.getPort(), true, stats.procfsReads);
        this.shared = new ResponderSource(libc, ch, null, new ResponderBudget(rate, burst), counted);
        shared.key = ch.register(selector, SelectionKey.OP_READ, shared);
        this.drops = receiver != null && shared.countsDrops() ? counted : new KernelDrops(local.getPort(), false, stats.procfsReads);
        stats.kernelDrops(drops::total);
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
        return local.getPort();
    }

    /** True when requests are timed from their arrival as the kernel stamped it. */
    public boolean kernelTimestamps() {
        return receiver != null && shared.fd >= 0;
    }

    private void serve() {
        byte[] buf = new byte[ProbePacket.MAX_SIZE];
        ByteBuffer bb = ByteBuffer.wrap(buf);
        long nextSweep = System.nanoTime() + PEER_IDLE_NANOS / 4;
        while (!closed) {
            try {
                long waitMs = resumePaused();
                long untilSweep = Math.max(1, (nextSweep - System.nanoTime()) / 1_000_000);
                selector.select(waitMs == 0 ? untilSweep : Math.min(waitMs, untilSweep));
                Iterator<SelectionKey> it = selector.selectedKeys().iterator();
                while (it.hasNext()) {
                    SelectionKey k = it.next();
                    it.remove();
                    if (k.isValid()) {
                        drain((ResponderSource) k.attachment(), buf, bb);
                    }
                }
                long now = System.nanoTime();
                if (now - nextSweep >= 0) {
                    closeIdlePeers(now);
                    nextSweep = now + PEER_IDLE_NANOS / 4;
                }
            } catch (IOException | ClosedSelectorException | CancelledKeyException e) {
                if (!closed) {
                    LOG.log(Level.FINE, "probe responder: " + e.getMessage());
                }
            }
        }
        peers.values().forEach(s -> ResponderSource.closeQuietly(s.channel));
        if (receiver != null) {
            receiver.close();
        }
    }

    /** Takes up to {@link #BATCH} packets off one socket, within its work budget, and answers them. */
    private void drain(ResponderSource src, byte[] buf, ByteBuffer bb) throws IOException {
        for (int i = 0; i < BATCH; i++) {
            if (src.budget.work.nanosUntilPermit() > 0) {
                // over budget: leave the packets to the socket buffer (and the kernel's drop counter)
                src.budget.ownDrop();
                src.key.interestOps(0);
                paused.add(src);
                return;
            }
            int n = src.receive(buf, bb, receiver);
            if (n == -2) {
                continue; // an answer to a peer that has gone drew ICMP port unreachable, or no source
            }
            if (n < 0) {
                return;
            }
            SocketAddress from = src.from;
            long t0 = src.arrivedNanos;
            src.budget.work.tryAcquire();
            int size = ResponderAnswer.answer(buf, n, t0, key, src.budget, stats);
            if (size < 0) {
                continue;
            }
            bb.clear().limit(size);
            // a peer's own socket answers its peer: send, not write, as it may be connected in the
            // kernel only (adopt). The shared socket answers everyone else, including a datagram that
            // a new peer socket took between its bind and its connect (SO_REUSEPORT spreads datagrams
            // over every bound member): it goes to its real sender, not that socket's peer
            boolean own = src.peer != null && src.peer.equals(from);
            (own ? src.channel : shared.channel).send(bb, from);
            stats.held(System.nanoTime() - t0);
            if (!own && perPeer && !peers.containsKey(from) && admission.answered(from, ResponderAnswer.session(buf))) {
                adopt(from);
            }
        }
    }

    /** Puts paused sockets whose budget has refilled back to reading; ms until the next can (0: none paused). */
    private long resumePaused() {
        long wait = Long.MAX_VALUE;
        for (Iterator<ResponderSource> it = paused.iterator(); it.hasNext();) {
            ResponderSource s = it.next();
            if (!s.key.isValid()) {
                it.remove();
                continue;
            }
            long w = s.budget.work.nanosUntilPermit();
            if (w == 0) {
                s.key.interestOps(SelectionKey.OP_READ);
                it.remove();
            } else {
                wait = Math.min(wait, w);
            }
        }
        return wait == Long.MAX_VALUE ? 0 : Math.max(1, (wait + 999_999) / 1_000_000);
    }

    /** A source {@link PeerAdmission} admitted gets a socket of its own. */
    private void adopt(SocketAddress from) {
        if (peers.size() >= MAX_PEERS) {
            closePeer(Collections.min(peers.values(), (a, b) -> Long.signum(a.lastUsed - b.lastUsed)));
        }
        DatagramChannel ch = null;
        try {
            ch = ResponderSockets.peer(local);
            ResponderSource s = new ResponderSource(libc, ch, from, new ResponderBudget(rate, burst),
                    drops.fromDatagrams() ? drops : null);
            // Between its bind and its connect the socket takes a share of the port's datagrams, a
            // probe of this peer or another's. DatagramChannel.connect reads and discards what the
            // socket holds by then, and such a probe was lost; connected by the kernel alone, they
            // stay and are answered to their senders (drain). Without libc, the JDK's connect.
            if (s.fd < 0 || !StampedSocket.connect(libc, s.fd, (InetSocketAddress) from)) {
                ch.connect(from);
            }
            s.key = ch.register(selector, SelectionKey.OP_READ, s);
            peers.put(from, s);
            stats.peerSockets = peers.size();
            stats.peerSocketsOpened.incrementAndGet();
        } catch (IOException e) {
            ResponderSource.closeQuietly(ch);
            LOG.log(Level.FINE, "probe responder: no socket of its own for " + from + ": " + e.getMessage());
        }
    }

    private void closeIdlePeers(long now) {
        peers.values().stream().filter(s -> now - s.lastUsed > PEER_IDLE_NANOS).toList().forEach(this::closePeer);
    }

    private void closePeer(ResponderSource s) {
        peers.remove(s.peer);
        stats.peerSockets = peers.size();
        paused.remove(s);
        // its drops were counted from its datagrams as they came (KernelDrops): nothing to read
        ResponderSource.closeQuietly(s.channel);
    }

    @Override
    public void close() {
        closed = true;
        ResponderSource.closeQuietly(shared.channel);
        try {
            selector.close();
        } catch (IOException e) {
            // closing
        }
    }
}
