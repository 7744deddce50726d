package io.fabricd.probes.bandwidth;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import io.fabricd.natives.Errno;
import io.fabricd.natives.VerbsShim;
import io.fabricd.probes.verbs.VerbsUd;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * RDMA reliable connected queue pairs for a bandwidth test, through native-shims' fabricd_rc (JNA):
 * {@code qps} RC QPs on one port with a registered buffer of {@code size} bytes each. One side
 * writes ({@link #write}), the other only holds its QPs open while it is written to. Not
 * thread-safe; {@link #close} may come from another thread only once the writer has returned.
 */
public final class VerbsRc implements BandwidthServer.QueuePairs {

    /** Most QPs one test opens (the shim's limit). */
    public static final int MAX_QPS = 64;

    /** One QP's address, what the peer needs to connect to it and write into its buffer. */
    public record QpAddress(long qpn, long psn, int lid, String gid, long rkey, long addr, int mtu) {
    }

    /** What a write run moved. */
    public record Moved(long bytes, long messages, long nanos) {
    }

    private final VerbsShim.Functions lib;
    private Pointer handle;
    private final String device;
    private final int qps;

    /**
     * @param size  bytes per message and per QP buffer
     * @param depth writes in flight per QP
     */
    public VerbsRc(VerbsShim shim, String device, int port, int gidIndex, long size, int qps, int depth) throws IOException {
        String why = shim.rcUnavailable();
        if (why != null) {
            throw new IOException(why);
        }
        this.lib = shim.functions();
        byte[] err = new byte[256];
        handle = lib.fabricd_rc_open(device, port, gidIndex, size, qps, depth, err, err.length);
        if (handle == null) {
            throw new IOException(device + " port " + port + ": " + VerbsUd.cString(err));
        }
        this.device = device;
        this.qps = qps;
    }

    @Override
    public synchronized List<QpAddress> addresses() throws IOException {
        List<QpAddress> out = new ArrayList<>();
        for (int i = 0; i < qps; i++) {
            int[] qpn = new int[1];
            int[] psn = new int[1];
            short[] lid = new short[1];
            byte[] gid = new byte[16];
            int[] rkey = new int[1];
            long[] addr = new long[1];
            int[] mtu = new int[1];
            int rc = lib.fabricd_rc_info(open(), i, qpn, psn, lid, gid, rkey, addr, mtu);
            if (rc < 0) {
                throw new IOException(device + ": ibv_query_port/gid failed: " + Errno.describe(-rc));
            }
            out.add(new QpAddress(Integer.toUnsignedLong(qpn[0]), Integer.toUnsignedLong(psn[0]), lid[0] & 0xffff,
                    VerbsUd.gidText(gid), Integer.toUnsignedLong(rkey[0]), addr[0], mtu[0]));
        }
        return out;
    }

    /** Connects each QP to the peer's QP of the same index. */
    @Override
    public synchronized void connect(List<QpAddress> peer) throws IOException {
        if (peer.size() != qps) {
            throw new IOException("the peer has " + peer.size() + " queue pairs, this side " + qps);
        }
        for (int i = 0; i < qps; i++) {
            QpAddress p = peer.get(i);
            byte[] err = new byte[256];
            int rc = lib.fabricd_rc_connect(open(), i, (int) p.qpn(), (int) p.psn(), p.lid(), VerbsUd.gidBytes(p.gid()), p.mtu(),
                    err, err.length);
            if (rc < 0) {
                throw new IOException(device + ": " + VerbsUd.cString(err));
            }
        }
    }

    /** RDMA WRITEs into the peer's buffers (or SENDs into its receives) for {@code millis}; what completed. */
    @Override
    public Moved write(boolean send, List<QpAddress> peer, int millis) throws IOException {
        long[] raddr = new long[qps];
        int[] rkey = new int[qps];
        for (int i = 0; i < qps; i++) {
            raddr[i] = peer.get(i).addr();
            rkey[i] = (int) peer.get(i).rkey();
        }
        Pointer h = open();
        return moved((bytes, msgs, ns, err) -> lib.fabricd_rc_write(h, send ? 1 : 0, raddr, rkey, millis, bytes, msgs, ns, err, err.length));
    }

    private final Memory stop = new Memory(4);

    /**
     * Receives the peer's SENDs, receives posted again as they complete, until {@link #stopReceiving}
     * or {@code limitMillis}; what arrived.
     */
    @Override
    public Moved receive(int limitMillis) throws IOException {
        stop.setInt(0, 0);
        Pointer h = open();
        return moved((bytes, msgs, ns, err) -> lib.fabricd_rc_receive(h, stop, limitMillis, bytes, msgs, ns, err, err.length));
    }

    /** A write or receive run of the shim, which counts into its arrays or writes its error into {@code err}. */
    private interface Run {
        int call(long[] bytes, long[] msgs, long[] ns, byte[] err);
    }

    private Moved moved(Run run) throws IOException {
        long[] bytes = new long[1];
        long[] msgs = new long[1];
        long[] ns = new long[1];
        byte[] err = new byte[256];
        if (run.call(bytes, msgs, ns, err) < 0) {
            throw new IOException(device + ": " + VerbsUd.cString(err));
        }
        return new Moved(bytes[0], msgs[0], ns[0]);
    }

    /** Ends a {@link #receive} running on another thread. */
    @Override
    public void stopReceiving() {
        stop.setInt(0, 1);
    }

    private Pointer open() throws IOException {
        Pointer h = handle;
        if (h == null) {
            throw new IOException(device + ": the queue pairs are closed");
        }
        return h;
    }

    @Override
    public synchronized void close() {
        if (handle != null) {
            lib.fabricd_rc_close(handle);
            handle = null;
        }
    }
}
