package io.fabricd.probes.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.natives.LibC;
import io.fabricd.probes.ProbeKey;
import io.fabricd.probes.ProbePacket;
import io.fabricd.probes.mesh.ProbeSession;
import io.fabricd.probes.udp.UdpTransport;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Probes an attacker on the path could capture: made by the real client for another agent (a
 * socket standing in for it, which answers none), so authenticated, fresh, and never seen by the
 * responder a test then replays them at. Shared by the responder's and the agent's replay tests.
 */
public final class CapturedProbes {
    private CapturedProbes() {
    }

    /** {@code count} probes of 64 bytes, at least nine in ten of them (loopback may drop a few). */
    public static List<byte[]> capture(ProbeKey key, int count) throws IOException {
        List<byte[]> got = new ArrayList<>();
        try (DatagramSocket other = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0));
             UdpTransport requester = new UdpTransport(LibC.load(), new InetSocketAddress("127.0.0.1", other.getLocalPort()))) {
            other.setReceiveBufferSize(4 << 20);
            other.setSoTimeout(2000);
            new ProbeSession(requester, key, Duration.ZERO, Duration.ofMillis(1)).run("other", null, null, 64, count);
            byte[] buf = new byte[ProbePacket.MAX_SIZE];
            while (got.size() < count) {
                DatagramPacket p = new DatagramPacket(buf, buf.length);
                try {
                    other.receive(p);
                } catch (SocketTimeoutException e) {
                    break;
                }
                got.add(Arrays.copyOf(buf, p.getLength()));
            }
        }
        assertThat(got).as("captured probes").hasSizeGreaterThan(count * 9 / 10);
        return got;
    }
}
