package io.fabricd.probes.mesh;

import io.fabricd.natives.Natives;
import io.fabricd.probes.udp.StampedSocket;
import io.fabricd.probes.udp.UdpTransport;
import io.fabricd.probes.verbs.VerbsUd;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;

/**
 * The probing side's sockets and queue pairs, kept from round to round.
 *
 * <p>One UDP socket per peer: a stable source port, so the peer's responder sorts this agent's
 * probes into a socket of their own, apart from any flood at its port. A peer is probed by one
 * session thread at a time (once per round). One UD requester per session thread, for the service's
 * life: a queue pair per round would churn.
 */
final class PeerTransports implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(PeerTransports.class.getName());
    private final Natives natives;
    private final Map<String, UdpTransport> udp = new ConcurrentHashMap<>();
    private final ThreadLocal<VerbsUd> requesters = new ThreadLocal<>();
    private final List<VerbsUd> allRequesters = new CopyOnWriteArrayList<>();
    /** Why probes are timed in the JVM is said once, at the first peer's socket, not once per peer. */
    private final AtomicBoolean saidUnstamped = new AtomicBoolean();

    PeerTransports(Natives natives) {
        this.natives = natives;
    }

    /** The peer's UDP socket, a new one when it has none yet or its address changed. */
    UdpTransport udp(String peer, InetSocketAddress target) throws IOException {
        UdpTransport t = udp.get(peer);
        if (t != null && t.target().equals(target)) {
            return t;
        }
        closeUdp(peer);
        t = new UdpTransport(natives.libc(), target);
        if (!t.kernelTimestamps() && saidUnstamped.compareAndSet(false, true)) {
            LOG.info("UDP probes are timed in the JVM, not by the kernel: " + StampedSocket.unavailable(natives.libc()));
        }
        udp.put(peer, t);
        return t;
    }

    void closeUdp(String peer) {
        UdpTransport t = udp.remove(peer);
        if (t != null) {
            t.close();
        }
    }

    /** Closes the UDP sockets of peers no longer planned. */
    void retainUdp(Set<String> planned) {
        List.copyOf(udp.keySet()).stream().filter(p -> !planned.contains(p)).forEach(this::closeUdp);
    }

    /** This thread's UD requester on the local port, opened on first use. */
    VerbsUd requester(VerbsUd.Address local) throws IOException {
        VerbsUd ud = requesters.get();
        if (ud == null) {
            ud = new VerbsUd(natives.verbs(), local.device(), local.port(), local.gidIndex(), 4096, 256);
            requesters.set(ud);
            allRequesters.add(ud);
        }
        return ud;
    }

    /** After the session threads have stopped. */
    @Override
    public void close() {
        allRequesters.forEach(VerbsUd::close);
        List.copyOf(udp.keySet()).forEach(this::closeUdp);
    }
}
