package io.fabricd.model;

import java.util.List;
import java.util.SortedMap;

/**
 * One RDMA device of {@code /sys/class/infiniband}. Fields the host does not provide are null
 * (rxe has no hca_type, board_id, PCI address).
 *
 * @param nodeType     as sysfs prints it ("1: CA")
 * @param pciAddress   PCI function of the {@code device} link ("0000:19:00.0"), null for virtual devices
 * @param numaNode     the PCI function's numa_node; -1 when the platform does not say
 * @param parent       rxe's underlying netdev
 * @param hwCounters   device-level {@code hw_counters/} (mlx5 switchdev), raw names, unsigned
 */
public record RdmaDevice(
        String name,
        String nodeGuid,
        String sysImageGuid,
        String nodeType,
        String fwVer,
        String hcaType,
        String boardId,
        String pciAddress,
        Integer numaNode,
        String parent,
        SortedMap<String, Long> hwCounters,
        List<RdmaPort> ports) {

    public RdmaDevice {
        hwCounters = Counters.copy(hwCounters);
        ports = List.copyOf(ports);
    }

    /** True for an iWARP device (node type 4: RNIC, as siw and irdma in iWARP mode report): RDMA over TCP, not RoCE. */
    public boolean iwarp() {
        return nodeType != null && nodeType.strip().startsWith("4:");
    }
}
