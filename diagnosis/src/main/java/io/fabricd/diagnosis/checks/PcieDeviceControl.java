package io.fabricd.diagnosis.checks;

import io.fabricd.model.HostModel;
import io.fabricd.model.PciFunction;
import io.fabricd.model.PcieConfig;
import io.fabricd.model.finding.Evidence;
import io.fabricd.model.PciPaths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What the PCIe checks of an RDMA NIC's Device Control register share: the NICs whose config space
 * fabricd read, each with its registers and the supported Max Payload of the path above it, and the
 * NICs whose registers could not be read ({@link ConfigRegisters}).
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

    /** Every NIC whose config space was read, the ones that cannot be judged too. */
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

    /** The NICs whose own Device Control can be judged: read whole, from a function that still answers. */
    static List<Nic> judged(HostModel m) {
        return nics(m).stream().filter(n -> ConfigRegisters.express(m, n.function().address()).isEmpty()).toList();
    }

    /** Why each NIC's own Device Control cannot be read, by the NIC's address: what the three NIC checks do not judge. */
    static Map<String, ConfigRegisters.Unread> unread(HostModel m) {
        Map<String, ConfigRegisters.Unread> out = new TreeMap<>();
        for (Nic n : nics(m)) {
            String bdf = n.function().address();
            ConfigRegisters.express(m, bdf).ifPresent(u -> out.put(bdf, u));
        }
        return out;
    }

    /** Why the NIC's own Device Control, or the Device Capabilities of a bridge above it, cannot be read; empty when all can. */
    static Optional<ConfigRegisters.Unread> pathUnread(HostModel m, Nic n) {
        Optional<ConfigRegisters.Unread> own = ConfigRegisters.express(m, n.function().address());
        if (own.isPresent()) {
            return own;
        }
        for (String b : PciPaths.bridgesAbove(n.function().path())) {
            Optional<ConfigRegisters.Unread> u = ConfigRegisters.express(m, b);
            if (u.isPresent()) {
                return u;
            }
        }
        return Optional.empty();
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
