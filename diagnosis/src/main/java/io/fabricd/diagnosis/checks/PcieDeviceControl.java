package io.fabricd.diagnosis.checks;

import io.fabricd.model.HostModel;
import io.fabricd.model.PciFunction;
import io.fabricd.model.PcieConfig;
import io.fabricd.model.finding.Evidence;
import io.fabricd.model.PciPaths;
import java.util.ArrayList;
import java.util.List;

/**
 * What the PCIe checks of an RDMA NIC's Device Control register share: the NICs whose config space
 * fabricd read, each with its registers, and the supported Max Payload of the path above it.
 */
final class PcieDeviceControl {
    private PcieDeviceControl() {
    }

    /** A NIC function and its config; its bridges' configs up to the root port, nearest first (null where unread). */
    record Nic(PciFunction function, PcieConfig config, List<PcieConfig> path) {
        /**
         * The largest payload every function from the NIC to its root port supports: what the NIC's
         * Max Payload could be; null when one of them is unknown.
         */
        Integer pathAllows() {
            Integer least = config.maxPayloadSupported();
            for (PcieConfig b : path) {
                if (least == null || b == null || b.maxPayloadSupported() == null) {
                    return null;
                }
                least = Math.min(least, b.maxPayloadSupported());
            }
            return least;
        }
    }

    static List<Nic> nics(HostModel m) {
        List<Nic> out = new ArrayList<>();
        for (PciFunction f : m.pci()) {
            if (!f.kind().equals("nic")) {
                continue;
            }
            PcieConfig c = m.pcieConfig(f.address()).orElse(null);
            if (c == null) {
                continue;
            }
            List<PcieConfig> path = new ArrayList<>();
            for (String b : PciPaths.bridgesAbove(f.path())) {
                path.add(m.pcieConfig(b).orElse(null));
            }
            out.add(new Nic(f, c, path));
        }
        return out;
    }

    /**
     * Why a config space that was read whole (256 bytes or more) gives no Device Control registers;
     * null when it gives them, or when the read was cut short ({@link PcieConfig#truncated}: the
     * unprivileged case, which {@code pcie_config_blind} says for every check at once).
     */
    static String unreadableReason(PcieConfig c) {
        if (c.allOnes()) {
            return "its config space reads all ones: the function no longer answers";
        }
        if (c.maxReadRequest() != null || c.truncated()) {
            return null;
        }
        return "no PCI Express capability found in its " + c.bytesRead() + " bytes of config space (a capability list that is "
                + "missing, malformed or ends past the bytes read)";
    }

    static Evidence.Builder evidence(Nic n) {
        Evidence.Builder e = Evidence.builder();
        e.put("max_payload_bytes", n.config().maxPayload());
        e.put("max_payload_supported_bytes", n.config().maxPayloadSupported());
        e.put("max_read_request_bytes", n.config().maxReadRequest());
        e.put("relaxed_ordering", n.config().relaxedOrdering());
        e.put("confirm", "lspci -vvv -s " + n.function().address() + " | grep -A5 DevCtl");
        return e;
    }
}
