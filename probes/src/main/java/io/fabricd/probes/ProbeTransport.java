package io.fabricd.probes;

import java.io.IOException;

/**
 * The requester side of one transport, for one target: sends probe packets and receives answers.
 * Implementations: {@code UdpTransport}; the verbs (RDMA UD) transport in the native shim.
 */
public interface ProbeTransport extends AutoCloseable {
    /** "udp" or "verbs". */
    String name();

    /** Largest probe this transport can carry to the target (UDP: 65507; UD: the path MTU). */
    int maxSize();

    /** Sends {@code packet[0, length)}. */
    void send(byte[] packet, int length) throws IOException;

    /**
     * Waits up to {@code timeoutNanos} for one packet and copies it into {@code buf}; returns its length,
     * or -1 when none arrived in time.
     */
    int receive(byte[] buf, long timeoutNanos) throws IOException;

    /**
     * Now, on the clock this transport times probes with, in ns: read just before a probe is sent
     * and when an answer arrived. Differences of two readings are durations; the origin is the
     * transport's.
     */
    default long clock() {
        return System.nanoTime();
    }

    /**
     * When the packet the last {@link #receive} returned arrived, on {@link #clock()}'s clock, as
     * the kernel stamped it on arrival; -1 when the transport has no such stamp (the session then
     * reads the clock itself as the receive returns).
     */
    default long arrivalNanos() {
        return -1;
    }

    /**
     * When the last packet sent left for the device, on {@link #clock()}'s clock, as the kernel
     * stamped it; -1 when the transport has no such stamp (the session then times the probe from
     * its clock read just before the send).
     */
    default long sentNanos() {
        return -1;
    }

    /**
     * The round trip of the last packet sent and the last packet received, between the local NIC's
     * hardware completion timestamps, in ns; -1 when the transport or device has none (UDP, rxe).
     */
    default long hardwareRttNanos() {
        return -1;
    }

    @Override
    void close();
}
