package io.fabricd.exporters;

import io.fabricd.model.HostModel;
import io.fabricd.model.Iommu;
import io.fabricd.model.PciFunction;
import io.fabricd.model.PcieConfig;
import io.fabricd.model.metrics.TopologyMetrics;

/**
 * The config-space registers of the PCI functions fabricd tracks and the IOMMU's part in their DMA
 * (docs/metrics.md): what the GPUDirect readiness checks judge. A register the config space read
 * does not reach (an unprivileged read gets 64 bytes) has no series.
 */
final class PcieFamilies {
    private PcieFamilies() {
    }


    static void add(Families f, HostModel m) {
        for (PcieConfig c : m.pcieConfig()) {
            String kind = m.pciFunction(c.address()).map(PciFunction::kind).orElse("");
            String[] l = {c.address(), kind};
            f.add(TopologyMetrics.CONFIG_BYTES_READ, c.bytesRead(), l);
            f.addKnown(TopologyMetrics.MAX_PAYLOAD, c.maxPayload(), l);
            f.addKnown(TopologyMetrics.MAX_PAYLOAD_SUPPORTED, c.maxPayloadSupported(), l);
            f.addKnown(TopologyMetrics.MAX_READ_REQUEST, c.maxReadRequest(), l);
            if (c.relaxedOrdering() != null) {
                f.add(TopologyMetrics.RELAXED_ORDERING, c.relaxedOrdering() ? 1 : 0, l);
            }
            if (c.acs() != null) {
                for (int i = 0; i < PcieConfig.Acs.CONTROLS.size(); i++) {
                    int bit = 1 << i;
                    if ((c.acs().capability() & bit) != 0) {
                        f.add(TopologyMetrics.ACS_CONTROL, c.acs().enabled(bit) ? 1 : 0, c.address(), kind, PcieConfig.Acs.CONTROLS.get(i)[0]);
                    }
                }
            }
        }
        Iommu iommu = m.iommu();
        if (iommu == null) {
            return;
        }
        if (iommu.units() != null) {
            f.add(TopologyMetrics.IOMMU_UNITS, iommu.units().size());
        }
        for (Iommu.Device d : iommu.devices()) {
            String mode = iommu.mode(d);
            if (mode != null) {
                f.add(TopologyMetrics.IOMMU_MODE, 1, d.address(), d.kind(), mode);
            }
        }
    }
}
