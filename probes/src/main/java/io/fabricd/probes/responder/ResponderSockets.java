package io.fabricd.probes.responder;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.DatagramChannel;

/**
 * The UDP responder's sockets, non-blocking: the shared one bound to the probe port, and a known
 * peer's, bound to the same port beside it with {@code SO_REUSEPORT} ({@link UdpResponder} says why).
 */
final class ResponderSockets {
    /**
     * Each socket's receive buffer: room for bursts while the responder's thread is descheduled or
     * over its work budget (the kernel caps it at net.core.rmem_max, and charges only what is queued).
     */
    static final int RECEIVE_BUFFER = 4 << 20;

    private ResponderSockets() {
    }

    /** The shared socket on {@code bind}; with {@code SO_REUSEPORT} where the system has it. */
    static DatagramChannel shared(InetSocketAddress bind) throws IOException {
        DatagramChannel ch = DatagramChannel.open();
        try {
            if (perPeer(ch) && bind.getPort() != 0) {
                refuseIfTaken(bind); // SO_REUSEPORT would let a second agent of this user share the port silently
            }
            return bound(ch, bind, perPeer(ch));
        } catch (IOException e) {
            ch.close();
            throw e;
        }
    }

    /** Whether peers can have sockets of their own beside {@code ch} (SO_REUSEPORT). */
    static boolean perPeer(DatagramChannel ch) {
        return ch.supportedOptions().contains(StandardSocketOptions.SO_REUSEPORT);
    }

    /** A peer's socket on the shared one's address, not yet connected; the caller closes it on failure. */
    static DatagramChannel peer(InetSocketAddress local) throws IOException {
        return bound(DatagramChannel.open(), local, true);
    }

    private static DatagramChannel bound(DatagramChannel ch, InetSocketAddress address, boolean reusePort) throws IOException {
        if (reusePort) {
            ch.setOption(StandardSocketOptions.SO_REUSEPORT, true);
        }
        ch.setOption(StandardSocketOptions.SO_RCVBUF, RECEIVE_BUFFER);
        ch.bind(address);
        ch.configureBlocking(false);
        return ch;
    }

    private static void refuseIfTaken(InetSocketAddress bind) throws IOException {
        try (DatagramChannel probe = DatagramChannel.open()) {
            probe.bind(bind);
        } catch (BindException e) {
            throw new BindException("UDP " + bind.getHostString() + ":" + bind.getPort() + " is in use (" + e.getMessage() + ")");
        }
    }
}
