package io.fabricd.exporters;


import io.fabricd.model.GpuNicPath;
import io.fabricd.model.HostModel;
import io.fabricd.model.PciFunction;
import io.fabricd.model.PortAttrs;
import io.fabricd.model.QpSummary;
import io.fabricd.model.RdmaPort;
import io.fabricd.model.metrics.PortMetrics;
import io.fabricd.model.metrics.TopologyMetrics;

/** MTU, RoCE congestion counters, QP, PCIe/GPU topology, host and GPUDirect families (interfaces.md); the netdevs' in {@link NetdevFamilies}. */
final class HostFamilies {
    private HostFamilies() {
    }


    static void add(Families f, HostModel m, boolean allStats) {
        if (m.facts() != null) {
            String rack = m.labels().getOrDefault("rack", m.labels().getOrDefault("tor", ""));
            f.add(TopologyMetrics.HOST_INFO, 1, m.hostname(), m.facts().kernel(), rack);
            f.addKnown(TopologyMetrics.HOST_MEMORY, m.facts().memoryBytes());
            f.addKnown(TopologyMetrics.BOOT_TIME, m.facts().bootTime());
            m.facts().numaCpus().forEach((node, cpus) -> f.add(TopologyMetrics.NUMA_NODE_CPUS, cpus, node.toString()));
        }
        for (PortAttrs a : m.portAttrs()) {
            String port = Integer.toString(a.port());
            if (a.activeMtu() != null) {
                f.add(PortMetrics.ACTIVE_MTU, a.activeMtu(), a.device(), port);
                f.add(PortMetrics.MTU_DERIVED, "derived".equals(a.mtuSource()) ? 1 : 0, a.device(), port);
            }
            f.addKnown(PortMetrics.MAX_MTU, a.maxMtu(), a.device(), port);
        }
        for (RdmaPort p : m.ports()) {
            String port = Integer.toString(p.port());
            f.addCounter(PortMetrics.ROCE_ECN_MARKED, p.hwCounters().get("np_ecn_marked_roce_packets"), p.device(), port);
            f.addCounter(PortMetrics.ROCE_CNP_SENT, p.hwCounters().get("np_cnp_sent"), p.device(), port);
            f.addCounter(PortMetrics.ROCE_CNP_HANDLED, p.hwCounters().get("rp_cnp_handled"), p.device(), port);
            f.addCounter(PortMetrics.ROCE_CNP_IGNORED, p.hwCounters().get("rp_cnp_ignored"), p.device(), port);
        }
        NetdevFamilies.add(f, m, allStats);
        for (QpSummary q : m.qps()) {
            q.byState().forEach((state, count) -> f.add(PortMetrics.QUEUE_PAIRS, count, q.device(), state));
            f.addKnown(PortMetrics.MAX_QP, q.maxQp(), q.device());
        }
        for (GpuNicPath p : m.gpuNicPaths()) {
            if (p.path() != null) {
                f.add(TopologyMetrics.GPU_NIC_PATH, 1, p.gpu(), p.device(), p.path());
            }
        }
        for (PciFunction fn : m.pci()) {
            String[] l = {fn.address(), fn.kind()};
            if (fn.width() != null && !fn.linkReadsAllOnes()) { // 63: the register read all ones, no width
                f.add(TopologyMetrics.LINK_WIDTH, fn.width(), l);
            }
            f.addKnown(TopologyMetrics.LINK_MAX_WIDTH, fn.maxWidth(), l);
            f.addKnown(TopologyMetrics.LINK_SPEED, fn.speed(), l);
            f.addKnown(TopologyMetrics.LINK_MAX_SPEED, fn.maxSpeed(), l);
            f.add(TopologyMetrics.PCI_DEVICE_INFO, 1, fn.address(), fn.kind(), fn.vendor(), fn.device(), fn.numaNode() == null ? "" : fn.numaNode().toString(), fn.driver());
        }
        if (m.gpuDirect() != null && m.gpuDirect().enabled() != null) {
            f.add(TopologyMetrics.GPUDIRECT_ENABLED, m.gpuDirect().enabled() ? 1 : 0);
        }
    }
}
