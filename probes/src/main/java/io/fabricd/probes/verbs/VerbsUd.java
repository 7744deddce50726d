package io.fabricd.probes.verbs;

import com.sun.jna.Pointer;
import io.fabricd.natives.Errno;
import io.fabricd.natives.VerbsShim;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * One RDMA UD endpoint through native-shims' fabricd_ud (JNA): a UD QP in RTS on one port, with its
 * own PD, CQ and registered buffers. Not thread-safe: one per thread. Without libibverbs or the
 * shim, {@link VerbsShim#udUnavailable()} says why and the constructor fails with it.
 */
public final class VerbsUd implements AutoCloseable {
    /** fabricd's Q_Key (high bit clear: not a privileged Q_Key). */
    public static final long QKEY = 0x0FAB0D01L;

    private final VerbsShim.Functions lib;
    private Pointer handle;
    private final String device;
    private final int port;
    private final int gidIndex;
    private final byte[] srcGid = new byte[16];
    private final int[] srcQpn = new int[1];
    private final int[] srcLid = new int[1];

    /** The endpoint's address. */
    public record Address(String device, int port, int gidIndex, byte[] gid, long qpn, int lid, int activeMtu) {
    }

    public VerbsUd(VerbsShim shim, String device, int port, int gidIndex, int maxMsg, int depth) throws IOException {
        String why = shim.udUnavailable();
        if (why != null) {
            throw new IOException(why);
        }
        this.lib = shim.functions();
        byte[] err = new byte[256];
        handle = lib.fabricd_ud_open(device, port, gidIndex, (int) QKEY, maxMsg, depth, err, err.length);
        if (handle == null) {
            throw new IOException(device + " port " + port + ": " + cString(err));
        }
        this.device = device;
        this.port = port;
        this.gidIndex = gidIndex;
    }

    public Address address() throws IOException {
        int[] qpn = new int[1];
        short[] lid = new short[1];
        byte[] gid = new byte[16];
        int[] mtu = new int[1];
        int rc = lib.fabricd_ud_info(handle, qpn, lid, gid, mtu);
        if (rc < 0) {
            throw new IOException(device + ": ibv_query_port/gid failed: " + Errno.describe(-rc));
        }
        return new Address(device, port, gidIndex, gid, Integer.toUnsignedLong(qpn[0]), lid[0] & 0xffff, mtu[0]);
    }

    public void send(byte[] gid, int lid, long qpn, long qkey, byte[] data, int len) throws IOException {
        int rc = lib.fabricd_ud_send(handle, gid, lid, (int) qpn, (int) qkey, data, len);
        if (rc < 0) {
            throw new IOException("ibv_post_send on " + device + ": " + Errno.describe(-rc));
        }
    }

    /** Answers the sender of the last received message (address from its completion and GRH). */
    public void reply(byte[] data, int len) throws IOException {
        int rc = lib.fabricd_ud_reply(handle, (int) QKEY, data, len);
        if (rc < 0) {
            throw new IOException("reply on " + device + ": " + Errno.describe(-rc));
        }
    }

    /**
     * Busy-poll the completion queue up to {@code micros} before a {@link #receive} sleeps on the
     * completion channel: a woken thread costs microseconds on hardware and milliseconds under an
     * emulator, a spin costs CPU for about one round trip.
     */
    public void spin(int micros) {
        lib.fabricd_ud_set_spin(handle, micros);
    }

    private final long[] hwSend = new long[1];
    private final long[] hwRecv = new long[1];

    /**
     * The HCA-clock time between the completion of the last send and of the last receive (ns), or
     * -1 without completion timestamps (rxe, devices without an extended CQ).
     */
    public long hardwareRttNanos() {
        if (lib.fabricd_ud_hw_times(handle, hwSend, hwRecv) != 1) {
            return -1;
        }
        long d = hwRecv[0] - hwSend[0];
        return d > 0 ? d : -1;
    }

    /** One message's payload into {@code out}; its length, or -1 on timeout; {@link #reply} answers its sender. */
    public int receive(byte[] out, int timeoutMs) throws IOException {
        int n = lib.fabricd_ud_recv(handle, out, out.length, timeoutMs, srcGid, srcQpn, srcLid);
        // 0: none in time; below: a failed completion loses that message, the next one may be fine
        return n > 0 ? n : -1;
    }

    @Override
    public synchronized void close() {
        if (handle != null) {
            lib.fabricd_ud_close(handle);
            handle = null;
        }
    }

    /** The NUL-terminated text a native call wrote into {@code b}. */
    public static String cString(byte[] b) {
        int n = 0;
        while (n < b.length && b[n] != 0) {
            n++;
        }
        return new String(b, 0, n, StandardCharsets.UTF_8);
    }

    /** "fe80:0000:...": the sysfs form of a GID. */
    public static String gidText(byte[] gid) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 16; i += 2) {
            sb.append(i == 0 ? "" : ":").append(String.format("%02x%02x", gid[i], gid[i + 1]));
        }
        return sb.toString();
    }

    public static byte[] gidBytes(String text) {
        String hex = text.replace(":", "");
        if (hex.length() != 32) {
            throw new IllegalArgumentException("not a GID: " + text);
        }
        return HexFormat.of().parseHex(hex);
    }
}
