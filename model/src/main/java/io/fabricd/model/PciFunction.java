package io.fabricd.model;

/**
 * A PCI function fabricd cares about: an RDMA NIC function, an NVIDIA GPU or NVSwitch, or a bridge
 * above them (docs/spec/host-facts.md §4.1).
 *
 * @param kind         "nic", "gpu", "nvswitch" or "bridge"
 * @param path         resolved sysfs path ("sys/devices/pci0000:15/0000:15:01.0/.../0000:19:00.0")
 * @param numaNode     -1 when the platform does not say
 * @param speed        current link speed in transfers/s (GT/s × 10^9); null when unknown
 * @param maxSpeed     the link's best speed: min(device max, upstream port max) — a Gen5 card in a
 *                     Gen4 slot has a Gen4 max and is not degraded
 * @param maxWidth     likewise min(device, upstream port)
 */
public record PciFunction(String address, String kind, String path, String vendor, String device, String pciClass,
                          Integer numaNode, Long speed, Integer width, Long maxSpeed, Integer maxWidth, String driver) {
    /**
     * The width the kernel prints when the function's Link Status register reads all ones (63: the
     * register's whole width field set; no PCIe link has 63 lanes).
     */
    public static final int ALL_ONES_WIDTH = 63;

    /**
     * True when this collection's link status read all ones: the function no longer answers config
     * reads (it fell off the bus; NVIDIA's Xid 79). Read every collection, unlike the config space.
     */
    public boolean linkReadsAllOnes() {
        return width != null && width == ALL_ONES_WIDTH;
    }
}
