package io.fabricd.collectors.kernel.live;

import io.fabricd.collectors.kernel.HostReadException;
import io.fabricd.collectors.kernel.VerbsDevice;
import io.fabricd.natives.Errno;
import io.fabricd.natives.VerbsShim;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * ibv_query_device / ibv_query_port through native-shims' verbs shim. Without the shim or
 * libibverbs (not installed, not built) verbs are unavailable and fabricd derives what it can.
 */
final class VerbsQuery {
    private static final int FIELDS = 8;
    private static final int MAX_PORTS = 8;

    private final VerbsShim shim;

    VerbsQuery(VerbsShim shim) {
        this.shim = shim;
    }

    Optional<VerbsDevice> query(String device) throws HostReadException {
        if (shim.unavailable() != null) {
            return Optional.empty();
        }
        long[] maxQp = new long[1];
        int[] out = new int[MAX_PORTS * FIELDS];
        int n = shim.functions().fabricd_verbs_query(device, maxQp, out, MAX_PORTS);
        if (Errno.ENODEV.is(-n) || Errno.ENOSYS.is(-n)) { // ENOSYS: no RDMA in this kernel
            return Optional.empty();
        }
        if (n < 0) {
            throw new HostReadException("ibv_query_device " + device, Errno.describe(-n));
        }
        Map<Integer, VerbsDevice.VerbsPort> ports = new HashMap<>();
        for (int i = 0; i < n; i++) {
            int[] o = Arrays.copyOfRange(out, i * FIELDS, (i + 1) * FIELDS);
            if (o[0] <= 0) {
                continue; // that port's query failed
            }
            ports.put(o[0], new VerbsDevice.VerbsPort(state(o[1]), mtu(o[2]), mtu(o[3]), linkLayer(o[5]), o[4],
                    width(o[6]), speed(o[7])));
        }
        return Optional.of(new VerbsDevice(maxQp[0], ports));
    }

    /** enum ibv_port_state. */
    static String state(int s) {
        String[] n = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"};
        return s >= 0 && s < n.length ? n[s] : Integer.toString(s);
    }

    /** enum ibv_mtu: IBV_MTU_256 = 1 ... IBV_MTU_4096 = 5. */
    static Integer mtu(int m) {
        return m >= 1 && m <= 5 ? 128 << m : null;
    }

    /** IBV_LINK_LAYER_INFINIBAND 1, _ETHERNET 2. */
    static String linkLayer(int l) {
        return l == 1 ? "InfiniBand" : l == 2 ? "Ethernet" : "Unknown";
    }

    /** ibv_port_attr.active_width bits: 1 1X, 2 4X, 4 8X, 8 12X, 16 2X. */
    static String width(int w) {
        return switch (w) {
            case 1 -> "1X";
            case 2 -> "4X";
            case 4 -> "8X";
            case 8 -> "12X";
            case 16 -> "2X";
            default -> Integer.toString(w);
        };
    }

    /** ibv_port_attr.active_speed bits: 1 SDR, 2 DDR, 4 QDR, 8 FDR10, 16 FDR, 32 EDR, 64 HDR, 128 NDR. */
    static String speed(int s) {
        return switch (s) {
            case 1 -> "SDR";
            case 2 -> "DDR";
            case 4 -> "QDR";
            case 8 -> "FDR10";
            case 16 -> "FDR";
            case 32 -> "EDR";
            case 64 -> "HDR";
            case 128 -> "NDR";
            default -> Integer.toString(s);
        };
    }
}
