package io.fabricd.exporters;

import io.fabricd.model.HostModel;
import io.fabricd.model.NetdevInfo;
import io.fabricd.model.PciFunction;
import io.fabricd.model.PcieConfig;
import io.fabricd.model.PortAttrs;
import io.fabricd.model.RdmaDevice;
import io.fabricd.model.RdmaPort;
import io.fabricd.model.metrics.FindingMetrics;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * {@code fabric_config_info{key, value, hca_type} 1}: the configuration that must be the same on
 * every host of a fleet with the same cards (docs/alerts.md, "Fleet drift"), one series per distinct
 * value of each key on this host: firmware, driver, kernel, MTU (a RoCE port's netdev; an
 * InfiniBand port's active MTU as {@code ib_mtu}), PFC priorities, trust, ECN, PCIe
 * Max Read Request, ACS on the GPU-NIC switches, GPUDirect. The shipped recording rules count the
 * hosts holding each value per {@code hca_type} (the node group) and FabricConfigDrift names the
 * hosts that differ from a clear majority. A value that is not known is not exported: unknown is
 * never drift. Values are kept short and few: a key has a handful of values per fleet.
 */
final class ConfigFamilies {
    private ConfigFamilies() {
    }


    static void add(Families f, HostModel m) {
        // key -> hca_type -> values
        Map<String, Map<String, Set<String>>> seen = new TreeMap<>();
        for (RdmaDevice d : m.devices()) {
            String hca = d.hcaType() == null ? "" : d.hcaType();
            put(seen, "firmware", hca, d.fwVer());
            if (d.pciAddress() != null) {
                m.pciFunction(d.pciAddress()).map(PciFunction::driver).ifPresent(v -> put(seen, "driver", hca, v));
                m.pcieConfig(d.pciAddress()).map(PcieConfig::maxReadRequest).ifPresent(v -> put(seen, "mrrs", hca, v.toString()));
            }
            for (RdmaPort p : d.ports()) {
                if (!p.up()) {
                    continue; // an unused port's settings carry no traffic
                }
                NetdevInfo nd = p.netdev() == null ? null : m.netdev(p.netdev()).orElse(null);
                if ("Ethernet".equals(p.linkLayer()) && nd != null) {
                    put(seen, "mtu", hca, Objects.toString(nd.mtu(), null));
                    nd.pfc().ifPresent(pfc -> put(seen, "pfc", hca, pfc.enabled().isEmpty() ? "none"
                            : pfc.enabled().stream().map(String::valueOf).collect(Collectors.joining(","))));
                    put(seen, "trust", hca, nd.trust());
                    if (!nd.ecnNp().isEmpty() || !nd.ecnRp().isEmpty()) {
                        put(seen, "ecn", hca, "np " + on(nd.ecnNp()) + ", rp " + on(nd.ecnRp()));
                    }
                } else if ("InfiniBand".equals(p.linkLayer())) {
                    m.portAttrs(p.device(), p.port()).map(PortAttrs::activeMtu).ifPresent(v -> put(seen, "ib_mtu", hca, v.toString()));
                }
            }
        }
        String host = m.devices().stream().map(RdmaDevice::hcaType).filter(x -> x != null && !x.isBlank()).sorted().distinct()
                .collect(Collectors.joining("+"));
        if (m.facts() != null) {
            put(seen, "kernel", host, m.facts().kernel());
        }
        if (m.gpuDirect() != null && m.gpuDirect().enabled() != null) {
            put(seen, "gpudirect", host, m.gpuDirect().enabled() ? m.gpuDirect().reason().startsWith("DMA-BUF") ? "dma-buf" : "peer-memory"
                    : "off");
        }
        put(seen, "acs", host, acs(m));
        seen.forEach((key, byHca) -> byHca.forEach((hca, values) -> values.forEach(v ->
                f.add(FindingMetrics.CONFIG_INFO, 1, key, v, hca))));
    }

    /** The priorities with the knob on ("3,4"), or "off". */
    private static String on(Map<Integer, Boolean> knobs) {
        String s = knobs.entrySet().stream().filter(Map.Entry::getValue).map(e -> e.getKey().toString()).collect(Collectors.joining(","));
        return s.isEmpty() ? "off" : s;
    }

    /** "redirect" when a bridge above a GPU or NIC redirects peer-to-peer traffic, "off" when every known one does not; null when none is known. */
    private static String acs(HostModel m) {
        Boolean redirect = null;
        for (PciFunction f : m.pci()) {
            if (!f.kind().equals("bridge")) {
                continue;
            }
            PcieConfig c = m.pcieConfig(f.address()).orElse(null);
            if (c == null || c.acs() == null) {
                continue;
            }
            redirect = (redirect != null && redirect) || c.acs().redirects();
        }
        return redirect == null ? null : redirect ? "redirect" : "off";
    }

    private static void put(Map<String, Map<String, Set<String>>> seen, String key, String hca, String value) {
        if (value == null || value.isBlank()) {
            return;
        }
        seen.computeIfAbsent(key, k -> new TreeMap<>()).computeIfAbsent(hca, k -> new TreeSet<>()).add(value.strip());
    }
}
