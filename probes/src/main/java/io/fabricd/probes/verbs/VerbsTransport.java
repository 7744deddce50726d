package io.fabricd.probes.verbs;

import io.fabricd.probes.ProbeTransport;
import io.fabricd.probes.peers.Endpoint;
import java.io.IOException;

/** Probes over RDMA UD from a local device to a peer's UD responder (GID/LID, QPN, Q_Key). */
public final class VerbsTransport implements ProbeTransport {
    /**
     * A requester busy-polls this long for each answer before it sleeps: a round trip on a fabric
     * takes microseconds, so it spins for about one RTT; only a lost probe costs the full window.
     */
    static final int SPIN_US = 2_000;

    private final VerbsUd ud;
    private final byte[] gid;
    private final int lid;
    private final long qpn;
    private final long qkey;
    private final int maxSize;

    public VerbsTransport(VerbsUd ud, Endpoint.Device remote, int localActiveMtu) {
        this.ud = ud;
        this.gid = VerbsUd.gidBytes(remote.gid());
        this.lid = remote.lid();
        this.qpn = remote.qpn();
        this.qkey = remote.qkey();
        this.maxSize = Math.min(localActiveMtu, remote.activeMtu());
        ud.spin(SPIN_US);
    }

    @Override
    public String name() {
        return "verbs";
    }

    /** A UD message fits in one MTU: the smaller active MTU of the two ports. */
    @Override
    public int maxSize() {
        return maxSize;
    }

    @Override
    public void send(byte[] packet, int length) throws IOException {
        ud.send(gid, lid, qpn, qkey, packet, length);
    }

    @Override
    public int receive(byte[] buf, long timeoutNanos) throws IOException {
        return ud.receive(buf, (int) Math.min(Integer.MAX_VALUE, Math.max(0, timeoutNanos / 1_000_000)));
    }

    @Override
    public long hardwareRttNanos() {
        return ud.hardwareRttNanos();
    }

    @Override
    public void close() {
        ud.close();
    }
}
