package io.fabricd.exporters;

import static io.fabricd.model.Counters.toDouble;

import io.fabricd.model.GpuNicPath;
import io.fabricd.model.HostModel;
import io.fabricd.model.PciFunction;
import io.fabricd.model.PortAttrs;
import io.fabricd.model.QpSummary;
import io.fabricd.model.RdmaPort;

/** MTU, RoCE congestion counters, QP, PCIe/GPU topology, host and GPUDirect families (interfaces.md); the netdevs' in {@link NetdevFamilies}. */
final class HostFamilies {
    private HostFamilies() {
    }

    static void declare(Families f) {
        NetdevFamilies.declare(f);
        f.gauge("fabric_port_active_mtu_bytes", "Active MTU of the port (verbs, or derived from the netdev MTU for RoCE; see fabric_port_mtu_derived).");
        f.gauge("fabric_port_max_mtu_bytes", "Largest MTU the port supports.");
        f.gauge("fabric_port_mtu_derived", "1 when the active MTU was derived from the netdev MTU because verbs could not answer.");
        f.counter("fabric_roce_ecn_marked_packets", "RoCEv2 packets received with ECN CE (hw_counters np_ecn_marked_roce_packets).");
        f.counter("fabric_roce_cnp_sent", "CNPs sent by the notification point (hw_counters np_cnp_sent).");
        f.counter("fabric_roce_cnp_handled", "CNPs handled by the reaction point (hw_counters rp_cnp_handled).");
        f.counter("fabric_roce_cnp_ignored", "CNPs ignored by the reaction point (hw_counters rp_cnp_ignored).");
        f.gauge("fabric_queue_pairs", "Queue pairs visible to the agent by state (RDMA netlink; PID-namespace filtered).");
        f.gauge("fabric_device_max_qp", "The device's queue pair limit (ibv_query_device max_qp).");
        f.gauge("fabric_gpu_nic_path", "One per GPU x RDMA device: the PCIe path class (PIX, PXB, PHB, NODE, SYS); value 1.");
        f.gauge("fabric_pcie_link_width", "Current PCIe link width (lanes).");
        f.gauge("fabric_pcie_link_max_width", "Best link width: min(device max, upstream port max).");
        f.gauge("fabric_pcie_link_speed_transfers_per_second", "Current PCIe link speed (GT/s x 1e9).");
        f.gauge("fabric_pcie_link_max_speed_transfers_per_second", "Best link speed: min(device max, upstream port max).");
        f.gauge("fabric_pci_device_info", "One per PCI function of interest (nic, gpu, nvswitch, bridge): ids, NUMA node, driver; value 1.");
        f.gauge("fabric_host_info", "One per host: hostname, kernel release, rack (topology label rack, else tor; empty when unknown); value 1.");
        f.gauge("fabric_host_memory_bytes", "Host memory (proc/meminfo MemTotal).");
        f.gauge("fabric_host_boot_time_seconds", "When the host booted (proc/stat btime), seconds since the epoch.");
        f.gauge("fabric_numa_node_cpus", "Logical CPUs per NUMA node.");
        f.gauge("fabric_gpudirect_rdma_enabled", "1 when a GPUDirect RDMA path exists (peer-memory module or DMA-BUF), 0 when not; absent where it does not apply.");
    }

    static void add(Families f, HostModel m, boolean allStats) {
        if (m.facts() != null) {
            String rack = m.labels().getOrDefault("rack", m.labels().getOrDefault("tor", ""));
            f.add("fabric_host_info", 1, "hostname", m.hostname(), "kernel", m.facts().kernel(), "rack", rack);
            if (m.facts().memoryBytes() != null) {
                f.add("fabric_host_memory_bytes", m.facts().memoryBytes());
            }
            if (m.facts().bootTime() != null) {
                f.add("fabric_host_boot_time_seconds", m.facts().bootTime());
            }
            m.facts().numaCpus().forEach((node, cpus) -> f.add("fabric_numa_node_cpus", cpus, "numa_node", node.toString()));
        }
        for (PortAttrs a : m.portAttrs()) {
            String port = Integer.toString(a.port());
            if (a.activeMtu() != null) {
                f.add("fabric_port_active_mtu_bytes", a.activeMtu(), "device", a.device(), "port", port);
                f.add("fabric_port_mtu_derived", "derived".equals(a.mtuSource()) ? 1 : 0, "device", a.device(), "port", port);
            }
            if (a.maxMtu() != null) {
                f.add("fabric_port_max_mtu_bytes", a.maxMtu(), "device", a.device(), "port", port);
            }
        }
        for (RdmaPort p : m.ports()) {
            String port = Integer.toString(p.port());
            hw(f, "fabric_roce_ecn_marked_packets", p, port, "np_ecn_marked_roce_packets");
            hw(f, "fabric_roce_cnp_sent", p, port, "np_cnp_sent");
            hw(f, "fabric_roce_cnp_handled", p, port, "rp_cnp_handled");
            hw(f, "fabric_roce_cnp_ignored", p, port, "rp_cnp_ignored");
        }
        NetdevFamilies.add(f, m, allStats);
        for (QpSummary q : m.qps()) {
            q.byState().forEach((state, count) -> f.add("fabric_queue_pairs", count, "device", q.device(), "state", state));
            if (q.maxQp() != null) {
                f.add("fabric_device_max_qp", q.maxQp(), "device", q.device());
            }
        }
        for (GpuNicPath p : m.gpuNicPaths()) {
            if (p.path() != null) {
                f.add("fabric_gpu_nic_path", 1, "gpu", p.gpu(), "device", p.device(), "path", p.path());
            }
        }
        for (PciFunction fn : m.pci()) {
            String[] l = {"pci", fn.address(), "kind", fn.kind()};
            if (fn.width() != null && !fn.linkReadsAllOnes()) { // 63: the register read all ones, no width
                f.add("fabric_pcie_link_width", fn.width(), l);
            }
            if (fn.maxWidth() != null) {
                f.add("fabric_pcie_link_max_width", fn.maxWidth(), l);
            }
            if (fn.speed() != null) {
                f.add("fabric_pcie_link_speed_transfers_per_second", fn.speed(), l);
            }
            if (fn.maxSpeed() != null) {
                f.add("fabric_pcie_link_max_speed_transfers_per_second", fn.maxSpeed(), l);
            }
            f.add("fabric_pci_device_info", 1, "pci", fn.address(), "kind", fn.kind(), "vendor", fn.vendor(),
                    "device", fn.device(), "numa_node", fn.numaNode() == null ? "" : fn.numaNode().toString(),
                    "driver", fn.driver());
        }
        if (m.gpuDirect() != null && m.gpuDirect().enabled() != null) {
            f.add("fabric_gpudirect_rdma_enabled", m.gpuDirect().enabled() ? 1 : 0);
        }
    }

    private static void hw(Families f, String family, RdmaPort p, String port, String counter) {
        Long v = p.hwCounters().get(counter);
        if (v != null) {
            f.add(family, toDouble(v), "device", p.device(), "port", port);
        }
    }
}
