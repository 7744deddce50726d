package io.fabricd.collectors.kernel;

import java.util.Map;

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
}
