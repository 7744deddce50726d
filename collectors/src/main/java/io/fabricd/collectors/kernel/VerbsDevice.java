package io.fabricd.collectors.kernel;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/** ibv_query_device / ibv_query_port answers (or the verbs side-car). */
public record VerbsDevice(Long maxQp, Map<Integer, VerbsPort> ports) {
    public VerbsDevice {
        ports = Map.copyOf(ports);
    }

    /**
     * One port. MTUs in bytes (IBV_MTU_256..4096 → 256..4096); widths "1X".."12X"; speeds "SDR".."XDR".
     */
    public record VerbsPort(String state, Integer maxMtu, Integer activeMtu, String linkLayer, Integer gidTblLen,
                            String activeWidth, String activeSpeed) {
    }

    /**
     * Parses {@code ibv_devinfo [-v] -d DEVICE} output (rdma-core's libibverbs/examples/devinfo.c):
     * {@code key: value} lines, a {@code port: N} line opening each port; states as
     * {@code PORT_ACTIVE (4)}, MTUs as {@code 4096 (5)}, widths {@code 4X (2)}. The first device
     * only; keys it does not print (older rdma-core had no link_layer; gid_tbl_len and max_qp need
     * -v) are null. Null when the text holds no port.
     */
    public static VerbsDevice parseIbvDevinfo(String text) {
        Long maxQp = null;
        Map<Integer, VerbsPort> ports = new TreeMap<>();
        Integer port = null;
        Map<String, String> kv = new HashMap<>();
        boolean seenDevice = false;
        for (String raw : text.split("\n")) {
            String line = raw.strip();
            int colon = line.indexOf(':');
            if (colon <= 0) {
                continue;
            }
            String key = line.substring(0, colon).strip();
            String value = line.substring(colon + 1).strip();
            if (key.equals("hca_id")) {
                if (seenDevice) {
                    break;
                }
                seenDevice = true;
            } else if (key.equals("port")) {
                if (port != null) {
                    ports.put(port, port(kv));
                }
                kv.clear();
                port = parseInt(value);
            } else if (port == null && key.equals("max_qp")) {
                Integer q = parseInt(value);
                maxQp = q == null ? null : q.longValue();
            } else if (port != null) {
                kv.put(key, value);
            }
        }
        if (port != null) {
            ports.put(port, port(kv));
        }
        return ports.isEmpty() ? null : new VerbsDevice(maxQp, ports);
    }

    private static VerbsPort port(Map<String, String> kv) {
        String state = kv.get("state");
        if (state != null) {
            state = first(state);
            state = state.startsWith("PORT_") ? state.substring(5) : state;
        }
        String width = kv.get("active_width");
        return new VerbsPort(state, parseInt(first(kv.get("max_mtu"))), parseInt(first(kv.get("active_mtu"))),
                kv.get("link_layer"), parseInt(kv.get("gid_tbl_len")), width == null ? null : first(width), kv.get("active_speed"));
    }

    /** The first word of a value ("4096 (5)" -> "4096"). */
    private static String first(String v) {
        if (v == null) {
            return null;
        }
        int sp = v.indexOf(' ');
        return sp < 0 ? v : v.substring(0, sp);
    }

    private static Integer parseInt(String v) {
        if (v == null) {
            return null;
        }
        try {
            return Integer.parseInt(v.strip());
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
