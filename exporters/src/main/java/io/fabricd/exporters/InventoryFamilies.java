package io.fabricd.exporters;

import io.fabricd.collectors.model.HostModel;
import io.fabricd.collectors.model.RdmaDevice;
import io.fabricd.collectors.model.RdmaPort;
import io.fabricd.diagnosis.inventory.Inventory;
import java.time.Instant;
import java.time.format.DateTimeParseException;
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

    static void declare(Families f) {
        f.gauge("fabric_inventory_present", "1 when an item of the host's expected inventory (item: rdma_device, rdma_port, "
                + "pci_function) is present, 0 when it is gone (docs/alerts.md).");
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
        for (Inventory.Device d : inv.devices()) {
            Optional<RdmaDevice> now = inv.match(m, d);
            f.add("fabric_inventory_present", now.isPresent() ? 1 : 0, "item", "rdma_device", "device", d.name(), "port", "",
                    "pci", d.pci(), "kind", "nic");
            for (Inventory.Port p : d.ports()) {
                String device = now.map(RdmaDevice::name).orElse(d.name());
                boolean present = now.isPresent() && now.get().ports().stream().map(RdmaPort::port).anyMatch(n -> n == p.port());
                f.add("fabric_inventory_present", present ? 1 : 0, "item", "rdma_port", "device", device,
                        "port", Integer.toString(p.port()), "pci", "", "kind", "");
                f.add("fabric_inventory_port_expected_up", p.expectedUp() ? 1 : 0, "device", device, "port", Integer.toString(p.port()));
            }
        }
        for (Inventory.Pci p : inv.pci()) {
            boolean present = m.pciFunction(p.address()).isPresent() && !Inventory.gone(m, p.address());
            f.add("fabric_inventory_present", present ? 1 : 0, "item", "pci_function", "device", "", "port", "",
                    "pci", p.address(), "kind", p.kind());
        }
    }
}
