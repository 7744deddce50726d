package io.fabricd.exporters;

import io.fabricd.model.HostModel;
import io.fabricd.model.RdmaDevice;
import io.fabricd.model.RdmaPort;
import io.fabricd.diagnosis.inventory.Inventory;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
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

    private static void add(Families f, java.util.Set<List<String>> seen, String name, double v, String... labels) {
        List<String> key = new java.util.ArrayList<>(List.of(name));
        for (String l : labels) {
            key.add(l == null ? "" : l);
        }
        if (seen.add(key)) {
            f.add(name, v, labels);
        }
    }

    static void declare(Families f) {
        f.gauge("fabric_inventory_present", "1 when an item of the host's expected inventory (item: rdma_device, rdma_port, "
                + "pci_function; node_guid tells apart two devices of one name) is present, 0 when it is gone (docs/alerts.md).");
        f.gauge("fabric_inventory_port_expected_up", "1 when the inventory saw the RDMA port up, so it must stay up; 0 for a port "
                + "that was never up since the inventory was learned or accepted.");
        f.gauge("fabric_inventory_accepted_timestamp_seconds", "When the host's inventory was learned first or last accepted.");
    }

    static void add(Families f, HostModel m, Inventory inv) {
        if (inv == null) {
            return;
        }
        try {
            f.add("fabric_inventory_accepted_timestamp_seconds", Instant.parse(inv.acceptedAt()).toEpochMilli() / 1000.0,
                    "origin", inv.origin());
        } catch (DateTimeParseException | NullPointerException e) {
            // a hand-edited inventory without a usable date: no timestamp series
        }
        // two entries can carry one name (a dead card whose name the surviving card took at the next
        // boot): the node GUID tells their series apart, and a label set is added once
        java.util.Set<List<String>> seen = new java.util.HashSet<>();
        // fabricd finds a NIC's PCI function through its RDMA device: without the device, whether the
        // function is on the bus is not known, and its series says nothing rather than "gone"
        java.util.Set<String> unknown = new java.util.HashSet<>();
        for (Inventory.Device d : inv.devices()) {
            Optional<RdmaDevice> now = inv.match(m, d);
            if (now.isEmpty() && d.pci() != null) {
                unknown.add(d.pci());
            }
            String device = now.map(RdmaDevice::name).orElse(d.name());
            String guid = d.nodeGuid() == null ? "" : d.nodeGuid();
            add(f, seen, "fabric_inventory_present", now.isPresent() ? 1 : 0, "item", "rdma_device", "device", device, "port", "",
                    "pci", d.pci(), "kind", "nic", "node_guid", guid);
            for (Inventory.Port p : d.ports()) {
                boolean present = now.isPresent() && now.get().ports().stream().map(RdmaPort::port).anyMatch(n -> n == p.port());
                add(f, seen, "fabric_inventory_present", present ? 1 : 0, "item", "rdma_port", "device", device,
                        "port", Integer.toString(p.port()), "pci", "", "kind", "", "node_guid", guid);
                if (now.isPresent()) {
                    add(f, seen, "fabric_inventory_port_expected_up", p.expectedUp() ? 1 : 0, "device", device, "port",
                            Integer.toString(p.port()));
                }
            }
        }
        for (Inventory.Pci p : inv.pci()) {
            if (unknown.contains(p.address())) {
                continue;
            }
            boolean present = m.pciFunction(p.address()).isPresent() && !m.readsAllOnes(p.address());
            add(f, seen, "fabric_inventory_present", present ? 1 : 0, "item", "pci_function", "device", "", "port", "",
                    "pci", p.address(), "kind", p.kind(), "node_guid", "");
        }
    }
}
