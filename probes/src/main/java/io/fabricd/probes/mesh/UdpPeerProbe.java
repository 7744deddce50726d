package io.fabricd.probes.mesh;

import io.fabricd.natives.LibC;
import io.fabricd.probes.ProbeKey;
import io.fabricd.probes.ProbeResult;
import io.fabricd.probes.peers.Endpoint;
import io.fabricd.probes.peers.EndpointClient;
import io.fabricd.probes.udp.UdpTransport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * Probes one peer over UDP at each size, from a socket of its own opened for this call and closed
 * after it: {@code fabricd probe} and the agents' on-demand preflight rounds. The pingmesh keeps
 * its own sockets between rounds (PeerTransports); nothing here touches them.
 */
public final class UdpPeerProbe {
    /** One size: its result, or why it has none (one line). */
    public record Sized(int size, ProbeResult result, String error) {
    }

    private UdpPeerProbe() {
    }

    /**
     * @param peer   the peer's HTTP address (HOST:PORT), whose host the probes go to
     * @param ep     its endpoint, with a UDP port
     * @param before called with each size before it is probed (progress lines)
     * @throws IOException when the socket cannot be opened
     */
    public static List<Sized> run(LibC libc, ProbeKey key, String peer, Endpoint ep, List<Integer> sizes, int count, Duration pace,
                                  Duration timeout, IntConsumer before) throws IOException {
        InetSocketAddress target = new InetSocketAddress(EndpointClient.host(peer), ep.udpPort());
        List<Sized> out = new ArrayList<>();
        // one socket for every size: after the first answer the peer's responder gives it a socket of its own
        try (UdpTransport t = new UdpTransport(libc, target)) {
            for (int size : sizes) {
                before.accept(size);
                try {
                    out.add(new Sized(size, new ProbeSession(t, key, pace, timeout).run(peer, null, null, size, count), null));
                } catch (IOException e) {
                    out.add(new Sized(size, null, String.valueOf(e.getMessage())));
                }
            }
        }
        return out;
    }
}
