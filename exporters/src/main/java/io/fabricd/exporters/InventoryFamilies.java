package io.fabricd.exporters;

import io.fabricd.model.HostModel;
import io.fabricd.model.RdmaDevice;
import io.fabricd.model.RdmaPort;
import io.fabricd.diagnosis.inventory.Inventory;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import io.fabricd.model.metrics.FindingMetrics;
import io.fabricd.model.metrics.MetricFamily;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.Optional;

/**
 * The host's expected inventory against what the latest collection saw (docs/metrics.md): one
 * {@code fabric_inventory_present} series per expected device, port and GPU/NIC function — 0 when
 * it is gone — so a vanished device keeps a series (and an alert) instead of losing its own; the
 * inventory is kept in the agent's state folder, so these series survive a restart of the agent.
 */
final class InventoryFamilies {
    private InventoryFamilies() {
    }

    private static void add(Families f, Set<List<String>> seen, MetricFamily family, double v, String... labels) {
        List<String> key = new ArrayList<>(List.of(family.name()));
        for (String l : labels) {
            key.add(l == null ? "" : l);
        }
        if (seen.add(key)) {
            f.add(family, v, labels);
        }
    }


    static void add(Families f, HostModel m, Inventory inv) {
        if (inv == null) {
            return;
        }
        try {
            f.add(FindingMetrics.INVENTORY_ACCEPTED, Instant.parse(inv.acceptedAt()).toEpochMilli() / 1000.0, inv.origin());
        } catch (DateTimeParseException | NullPointerException e) {
            // a hand-edited inventory without a usable date: no timestamp series
        }
        // two entries can carry one name (a dead card whose name the surviving card took at the next
        // boot): the node GUID tells their series apart, and a label set is added once
        Set<List<String>> seen = new HashSet<>();
        // fabricd finds a NIC's PCI function through its RDMA device: without the device, whether the
        // function is on the bus is not known, and its series says nothing rather than "gone"
        Set<String> unknown = new HashSet<>();
        for (Inventory.Device d : inv.devices()) {
            Optional<RdmaDevice> now = inv.match(m, d);
            if (now.isEmpty() && d.pci() != null) {
                unknown.add(d.pci());
            }
            String device = now.map(RdmaDevice::name).orElse(d.name());
            String guid = d.nodeGuid() == null ? "" : d.nodeGuid();
            add(f, seen, FindingMetrics.INVENTORY_PRESENT, now.isPresent() ? 1 : 0, "rdma_device", device, "", d.pci(), "nic", guid);
            for (Inventory.Port p : d.ports()) {
                boolean present = now.isPresent() && now.get().ports().stream().map(RdmaPort::port).anyMatch(n -> n == p.port());
                add(f, seen, FindingMetrics.INVENTORY_PRESENT, present ? 1 : 0, "rdma_port", device,
                        Integer.toString(p.port()), "", "", guid);
                if (now.isPresent()) {
                    add(f, seen, FindingMetrics.INVENTORY_PORT_EXPECTED_UP, p.expectedUp() ? 1 : 0, device,
                            Integer.toString(p.port()));
                }
            }
        }
        for (Inventory.Pci p : inv.pci()) {
            if (unknown.contains(p.address())) {
                continue;
            }
            boolean present = m.pciFunction(p.address()).isPresent() && !m.readsAllOnes(p.address());
            add(f, seen, FindingMetrics.INVENTORY_PRESENT, present ? 1 : 0, "pci_function", "", "",
                    p.address(), p.kind(), "");
        }
    }
}
