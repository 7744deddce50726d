package io.fabricd.probes.udp;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import io.fabricd.natives.LibC;

/**
 * The kernel's transmit times of a {@link StampedSocket}'s datagrams ({@code SO_TIMESTAMPING}
 * scheduler stamps: the moment the packet entered the device's queueing discipline,
 * CLOCK_REALTIME), read from the socket's error queue right after each send. A probe is then timed
 * from that moment: a pause of the requesting thread between reading its clock and the send call
 * stays out of the RTT, while a delay in the sending host's qdisc (netem, a full queue) stays in it
 * (a driver's software stamp comes after the qdisc and would hide it). Each stamp carries the
 * number of its send ({@code SOF_TIMESTAMPING_OPT_ID}); one that comes late is not taken for a
 * later datagram's. Used by the socket's one thread.
 */
final class TransmitStamps implements AutoCloseable {
    // include/uapi/linux/net_tstamp.h, asm-generic/socket.h, linux/errqueue.h, linux/in.h, linux/in6.h
    static final int SO_TIMESTAMPING = 37;
    private static final int SOFTWARE = 1 << 4;
    private static final int TX_SCHED = 1 << 8;
    private static final int OPT_ID = 1 << 7;
    private static final int OPT_TSONLY = 1 << 11;
    /** Scheduler transmit stamps, reported, numbered, without the packet looped back. */
    static final int FLAGS = TX_SCHED | SOFTWARE | OPT_ID | OPT_TSONLY;
    private static final int MSG_ERRQUEUE = 0x2000;
    private static final int SOL_IP = 0;
    private static final int IP_RECVERR = 11;
    private static final int SOL_IPV6 = 41;
    private static final int IPV6_RECVERR = 25;
    private static final int SO_EE_ORIGIN_TIMESTAMPING = 4;
    private static final int CONTROL = 256;

    private final LibC libc;
    private final Memory control = new Memory(CONTROL);
    /** struct msghdr without a name or data: only control messages come with a TSONLY stamp. */
    private final Memory msg = new Memory(56);
    /** Datagrams sent so far: the next one's stamp number. */
    private long sent;

    TransmitStamps(LibC libc) {
        this.libc = libc;
        msg.clear();
        msg.setPointer(32, control);
    }

    /**
     * The transmit time of the datagram just sent, ns since the epoch, or -1 when the kernel has
     * not given it yet; takes everything off the error queue.
     */
    long afterSend(int fd) {
        return drain(fd, sent++);
    }

    /** Takes stamps that came late off the error queue (a waiting poll would wake for them). */
    void drain(int fd) {
        drain(fd, -1);
    }

    private long drain(int fd, long id) {
        long stamp = -1;
        for (int i = 0; i < 64; i++) {
            msg.setLong(40, CONTROL);
            msg.setInt(48, 0);
            try {
                libc.recvmsg(fd, msg, MSG_ERRQUEUE | LibC.MSG_DONTWAIT);
            } catch (LastErrorException e) {
                break; // EAGAIN: nothing (more) queued
            }
            long t = stampOf(msg.getLong(40), id);
            if (t >= 0) {
                stamp = t;
            }
        }
        return stamp;
    }

    /** The software stamp of an error-queue message when it is numbered {@code id}; else -1. */
    private long stampOf(long length, long id) {
        long err = StampedSocket.controlData(control, length, SOL_IP, IP_RECVERR, 16);
        if (err < 0) {
            err = StampedSocket.controlData(control, length, SOL_IPV6, IPV6_RECVERR, 16);
        }
        long ts = StampedSocket.controlData(control, length, LibC.SOL_SOCKET, SO_TIMESTAMPING, 16);
        // struct sock_extended_err: ee_errno, ee_origin, ee_type, ee_code, ee_pad, ee_info, ee_data (the number)
        if (err < 0 || ts < 0 || control.getByte(err + 4) != SO_EE_ORIGIN_TIMESTAMPING
                || Integer.toUnsignedLong(control.getInt(err + 12)) != (id & 0xffffffffL)) {
            return -1;
        }
        long stamp = StampedSocket.timespec(control, ts); // ts[0], the software one
        return stamp > 0 ? stamp : -1;
    }

    @Override
    public void close() {
        control.close();
        msg.close();
    }
}
