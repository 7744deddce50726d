package io.fabricd.model.metrics;

import static io.fabricd.model.metrics.MetricFamily.gauge;

/** The host's and its PCIe topology's families: host facts, PCI functions and links, config-space registers, IOMMU, GPUs. */
public final class TopologyMetrics {
    private TopologyMetrics() {
    }

    public static final MetricFamily HOST_INFO = gauge("fabric_host_info", null,
            "One per host: hostname, kernel release, rack (topology label rack, else tor; empty when unknown); value 1.",
            "hostname", "kernel", "rack");
    public static final MetricFamily PLACEMENT_INFO = gauge("fabric_topology_info", null,
            "One per host: where it sits in the fabric, its leaf, spine and core switches and its accelerator (NVLink) domain, and "
                    + "the source that says so (slurm, topograph, labels, file); an empty label is unknown; value 1.",
            "leaf", "spine", "core", "accelerator", "source");
    public static final MetricFamily HOST_MEMORY = gauge("fabric_host_memory_bytes", "bytes", "Host memory (proc/meminfo MemTotal).");
    public static final MetricFamily BOOT_TIME = gauge("fabric_host_boot_time_seconds", "seconds",
            "When the host booted (proc/stat btime), seconds since the epoch.");
    public static final MetricFamily NUMA_NODE_CPUS = gauge("fabric_numa_node_cpus", null, "Logical CPUs per NUMA node.", "numa_node");
    public static final MetricFamily GPU_NIC_PATH = gauge("fabric_gpu_nic_path", null,
            "One per GPU x RDMA device: the PCIe path class (PIX, PXB, PHB, NODE, SYS); value 1.", "gpu", "device", "path");
    public static final MetricFamily LINK_WIDTH = gauge("fabric_pcie_link_width", null, "Current PCIe link width (lanes).", "pci", "kind");
    public static final MetricFamily LINK_MAX_WIDTH = gauge("fabric_pcie_link_max_width", null,
            "Best link width: min(device max, upstream port max).", "pci", "kind");
    public static final MetricFamily LINK_SPEED = gauge("fabric_pcie_link_speed_transfers_per_second", "transfers_per_second",
            "Current PCIe link speed (GT/s x 1e9).", "pci", "kind");
    public static final MetricFamily LINK_MAX_SPEED = gauge("fabric_pcie_link_max_speed_transfers_per_second", "transfers_per_second",
            "Best link speed: min(device max, upstream port max).", "pci", "kind");
    public static final MetricFamily PCI_DEVICE_INFO = gauge("fabric_pci_device_info", null,
            "One per PCI function of interest (nic, gpu, nvswitch, bridge): ids, NUMA node, driver; value 1.",
            "pci", "kind", "vendor", "device", "numa_node", "driver");
    public static final MetricFamily GPUDIRECT_ENABLED = gauge("fabric_gpudirect_rdma_enabled", null,
            "1 when a GPUDirect RDMA path exists (peer-memory module or DMA-BUF), 0 when not; absent where it does not apply.");
    public static final MetricFamily CONFIG_BYTES_READ = gauge("fabric_pci_config_bytes_read", null,
            "Bytes of the function's config space read: 64 unprivileged (no capability registers), 256 or 4096 as root.", "pci", "kind");
    public static final MetricFamily MAX_PAYLOAD = gauge("fabric_pci_max_payload_bytes", "bytes", "Device Control Max_Payload_Size.",
            "pci", "kind");
    public static final MetricFamily MAX_PAYLOAD_SUPPORTED = gauge("fabric_pci_max_payload_supported_bytes", "bytes",
            "Device Capabilities Max_Payload_Size Supported.", "pci", "kind");
    public static final MetricFamily MAX_READ_REQUEST = gauge("fabric_pci_max_read_request_bytes", "bytes",
            "Device Control Max_Read_Request_Size.", "pci", "kind");
    public static final MetricFamily RELAXED_ORDERING = gauge("fabric_pci_relaxed_ordering_enabled", null,
            "Device Control Enable Relaxed Ordering: 1 on, 0 off.", "pci", "kind");
    public static final MetricFamily ACS_CONTROL = gauge("fabric_pci_acs_control", null,
            "One per ACS control the function's ACS capability has: 1 enabled, 0 not (request_redirect and completion_redirect send "
                    + "peer-to-peer traffic up to the root complex).", "pci", "kind", "control");
    public static final MetricFamily IOMMU_MODE = gauge("fabric_pci_iommu_mode", null,
            "One per NIC and GPU function: the IOMMU's part in its DMA (translated, passthrough, off, blocked, unmanaged); value 1. "
                    + "No series when unknown.", "pci", "kind", "mode");
    public static final MetricFamily IOMMU_UNITS = gauge("fabric_iommu_units", null,
            "IOMMU units in sys/class/iommu (dmar*, ivhd*); 0 when the host has none; absent when unknown.");
    public static final MetricFamily PORT_NEIGHBOR_INFO = gauge("fabric_port_neighbor_info", null,
            "One per RDMA port whose switch neighbour is known and stable (LLDP: the one neighbour on the netdev, held 120 s or more): the switch's system "
                    + "name, its port, its chassis id and how it was learnt; value 1. No series when unknown or changing.",
            "device", "port", "netdev", "switch", "switch_port", "chassis_id", "learned");
    public static final MetricFamily PORT_NEIGHBOR_CHANGES = MetricFamily.counter("fabric_port_neighbor_changes", null,
            "Times the LLDP neighbour of a netdev changed (another switch or port, or several at once) while the agent watched; "
                    + "one series per netdev with a neighbour.", "device", "port", "netdev");
}
