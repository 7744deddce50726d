package io.fabricd.natives;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;

/**
 * The one Java binding of libfabricd_verbs.so (this module's C: ibv_query_device/port for the
 * collection, UD queue pairs for the probes, RC queue pairs for bandwidth tests). {@link #load}
 * never throws: without the shim or libibverbs (not installed, not built) it says why in
 * {@link #unavailable()}, and its users degrade: no verbs facts, no verbs transport, no bandwidth
 * test. Loaded where fabricd is put together and handed to the classes that call it.
 */
public final class VerbsShim {
    /** The library's name for JNA: libfabricd_verbs.so, found on the class path under linux-x86-64/ or linux-aarch64/. */
    public static final String LIBRARY = "fabricd_verbs";

    /** The shim's functions (fabricd_shim.h); errors come back as negative errno values or an error text in {@code err}. */
    public interface Functions extends Library {
        int fabricd_verbs_query(String name, long[] maxQp, int[] out, int maxPorts);

        Pointer fabricd_ud_open(String name, int port, int gidIndex, int qkey, int maxMsg, int depth, byte[] err, int errLen);

        int fabricd_ud_info(Pointer u, int[] qpn, short[] lid, byte[] gid, int[] activeMtu);

        int fabricd_ud_send(Pointer u, byte[] gid, int lid, int qpn, int qkey, byte[] data, int len);

        int fabricd_ud_recv(Pointer u, byte[] out, int outLen, int timeoutMs, byte[] srcGid, int[] srcQpn, int[] srcLid);

        int fabricd_ud_reply(Pointer u, int qkey, byte[] data, int len);

        void fabricd_ud_close(Pointer u);

        void fabricd_ud_set_spin(Pointer u, int spinUs);

        int fabricd_ud_hw_times(Pointer u, long[] sendNs, long[] recvNs);

        Pointer fabricd_rc_open(String name, int port, int gidIndex, long size, int qps, int depth, byte[] err, int errLen);

        int fabricd_rc_info(Pointer r, int i, int[] qpn, int[] psn, short[] lid, byte[] gid, int[] rkey, long[] addr, int[] mtu);

        int fabricd_rc_connect(Pointer r, int i, int qpn, int psn, int lid, byte[] gid, int mtu, byte[] err, int errLen);

        int fabricd_rc_write(Pointer r, int send, long[] raddr, int[] rkey, int durationMs, long[] bytes, long[] msgs, long[] elapsedNs,
                             byte[] err, int errLen);

        int fabricd_rc_receive(Pointer r, Pointer stop, int limitMs, long[] bytes, long[] msgs, long[] elapsedNs, byte[] err, int errLen);

        void fabricd_rc_close(Pointer r);
    }

    private final Functions functions;
    private final String unavailable;
    private final String udUnavailable;
    private final String rcUnavailable;

    private VerbsShim(Functions functions, String unavailable, String udUnavailable, String rcUnavailable) {
        this.functions = functions;
        this.unavailable = unavailable;
        this.udUnavailable = udUnavailable;
        this.rcUnavailable = rcUnavailable;
    }

    /** Loads the shim, and through it libibverbs (JNA keeps the library loaded once per process). */
    public static VerbsShim load() {
        Functions f;
        try {
            f = Native.load(LIBRARY, Functions.class);
        } catch (LinkageError e) {
            // UnsatisfiedLinkError: no shim or no libibverbs; NoClassDefFoundError: JNA itself cannot load
            String why = "the verbs shim or libibverbs is not available: " + firstLine(e);
            return new VerbsShim(null, why, why, why);
        }
        // a shim built before the UD or RC path was added lacks their functions
        String ud = missing("fabricd_ud_open", "UD");
        String rc = ud != null ? ud : missing("fabricd_rc_open", "RC");
        return new VerbsShim(f, null, ud, rc);
    }

    private static String missing(String function, String path) {
        try {
            NativeLibrary.getInstance(LIBRARY).getFunction(function);
            return null;
        } catch (LinkageError e) {
            return "the verbs shim has no " + path + " path (rebuild native-shims): " + firstLine(e);
        }
    }

    private static String firstLine(Throwable e) {
        return e.getMessage() == null ? e.toString() : e.getMessage().lines().findFirst().orElse("");
    }

    /** Why the shim cannot be used at all, in words, or null when it and libibverbs loaded. */
    public String unavailable() {
        return unavailable;
    }

    /** Why UD queue pairs (the verbs probe transport) cannot be opened, or null when they can. */
    public String udUnavailable() {
        return udUnavailable;
    }

    /** Why RC queue pairs (bandwidth tests) cannot be opened, or null when they can. */
    public String rcUnavailable() {
        return rcUnavailable;
    }

    /** The functions; only when {@link #unavailable()} is null. */
    public Functions functions() {
        if (functions == null) {
            throw new IllegalStateException(unavailable);
        }
        return functions;
    }
}
