package io.fabricd.exporters;

import io.fabricd.model.HostModel;
import io.fabricd.model.Iommu;
import io.fabricd.model.PciFunction;
import io.fabricd.model.PcieConfig;

/**
 * The config-space registers of the PCI functions fabricd tracks and the IOMMU's part in their DMA
 * (docs/metrics.md): what the GPUDirect readiness checks judge. A register the config space read
 * does not reach (an unprivileged read gets 64 bytes) has no series.
 */
final class PcieFamilies {
    private PcieFamilies() {
    }

    static void declare(Families f) {
        f.gauge("fabric_pci_config_bytes_read", "Bytes of the function's config space read: 64 unprivileged (no capability registers), 256 or 4096 as root.");
        f.gauge("fabric_pci_max_payload_bytes", "Device Control Max_Payload_Size.");
        f.gauge("fabric_pci_max_payload_supported_bytes", "Device Capabilities Max_Payload_Size Supported.");
        f.gauge("fabric_pci_max_read_request_bytes", "Device Control Max_Read_Request_Size.");
        f.gauge("fabric_pci_relaxed_ordering_enabled", "Device Control Enable Relaxed Ordering: 1 on, 0 off.");
        f.gauge("fabric_pci_acs_control", "One per ACS control the function's ACS capability has: 1 enabled, 0 not (request_redirect and completion_redirect send peer-to-peer traffic up to the root complex).");
        f.gauge("fabric_pci_iommu_mode", "One per NIC and GPU function: the IOMMU's part in its DMA (translated, passthrough, off, blocked, unmanaged); value 1. No series when unknown.");
        f.gauge("fabric_iommu_units", "IOMMU units in sys/class/iommu (dmar*, ivhd*); 0 when the host has none; absent when unknown.");
    }

    static void add(Families f, HostModel m) {
        for (PcieConfig c : m.pcieConfig()) {
            String kind = m.pciFunction(c.address()).map(PciFunction::kind).orElse("");
            String[] l = {"pci", c.address(), "kind", kind};
            f.add("fabric_pci_config_bytes_read", c.bytesRead(), l);
            if (c.maxPayload() != null) {
                f.add("fabric_pci_max_payload_bytes", c.maxPayload(), l);
            }
            if (c.maxPayloadSupported() != null) {
                f.add("fabric_pci_max_payload_supported_bytes", c.maxPayloadSupported(), l);
            }
            if (c.maxReadRequest() != null) {
                f.add("fabric_pci_max_read_request_bytes", c.maxReadRequest(), l);
            }
            if (c.relaxedOrdering() != null) {
                f.add("fabric_pci_relaxed_ordering_enabled", c.relaxedOrdering() ? 1 : 0, l);
            }
            if (c.acs() != null) {
                for (int i = 0; i < PcieConfig.Acs.CONTROLS.size(); i++) {
                    int bit = 1 << i;
                    if ((c.acs().capability() & bit) != 0) {
                        f.add("fabric_pci_acs_control", c.acs().enabled(bit) ? 1 : 0, "pci", c.address(), "kind", kind,
                                "control", PcieConfig.Acs.CONTROLS.get(i)[0]);
                    }
                }
            }
        }
        Iommu iommu = m.iommu();
        if (iommu == null) {
            return;
        }
        if (iommu.units() != null) {
            f.add("fabric_iommu_units", iommu.units().size());
        }
        for (Iommu.Device d : iommu.devices()) {
            String mode = iommu.mode(d);
            if (mode != null) {
                f.add("fabric_pci_iommu_mode", 1, "pci", d.address(), "kind", d.kind(), "mode", mode);
            }
        }
    }
}
