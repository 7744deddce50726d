package io.fabricd.model;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Everything one collection learnt about a host: immutable, built off the event loop, served until
 * the next collection replaces it.
 *
 * @param hostname    from the snapshot manifest or the live host
 * @param source      what was read ("/" or a snapshot folder)
 * @param collectedAt when the collection started
 * @param labels      topology labels (snapshot manifest or config)
 * @param facts       kernel, memory, CPUs per NUMA node (null if the host collector did not run)
 * @param devices     RDMA devices, sorted by name
 * @param netdevs     netdevs bound to RDMA ports, sorted by name
 * @param portAttrs   per-port MTUs and rdma_cm defaults
 * @param qps         per-device QP counts and limits (empty when RDMA netlink cannot answer)
 * @param pci         NICs, GPUs, NVSwitches and the bridges above them
 * @param gpuNicPaths one per GPU × RDMA device with a PCI function
 * @param gpuDirect   GPUDirect RDMA readiness
 * @param pcieConfig  the config-space registers of the functions in {@code pci} whose config was read
 * @param iommu       how the IOMMU handles the NICs' and GPUs' DMA; null when there is none of them, or the collector did not run
 * @param neighbors   the switch ports the netdevs are cabled to, as LLDP announces them (empty when unknown)
 * @param collectors  one entry per collector that ran, with its read errors
 */
public record HostModel(
        String hostname,
        String source,
        Instant collectedAt,
        Map<String, String> labels,
        HostFacts facts,
        List<RdmaDevice> devices,
        List<NetdevInfo> netdevs,
        List<PortAttrs> portAttrs,
        List<QpSummary> qps,
        List<PciFunction> pci,
        List<GpuNicPath> gpuNicPaths,
        GpuDirect gpuDirect,
        List<PcieConfig> pcieConfig,
        Iommu iommu,
        List<Neighbor> neighbors,
        List<CollectorRun> collectors) {

    public HostModel {
        labels = Map.copyOf(labels);
        devices = List.copyOf(devices);
        netdevs = List.copyOf(netdevs);
        portAttrs = List.copyOf(portAttrs);
        qps = List.copyOf(qps);
        pci = List.copyOf(pci);
        gpuNicPaths = List.copyOf(gpuNicPaths);
        pcieConfig = List.copyOf(pcieConfig);
        neighbors = List.copyOf(neighbors);
        collectors = List.copyOf(collectors);
    }

    /** The same collection dated otherwise (a snapshot's captured_at, for rates between snapshots). */
    public HostModel withCollectedAt(Instant at) {
        return new HostModel(hostname, source, at, labels, facts, devices, netdevs, portAttrs, qps, pci, gpuNicPaths, gpuDirect,
                pcieConfig, iommu, neighbors, collectors);
    }

    /** The neighbour announced on a netdev, stable or not. */
    public Optional<Neighbor> neighbor(String netdev) {
        return neighbors.stream().filter(n -> n.netdev().equals(netdev)).findFirst();
    }

    public Optional<NetdevInfo> netdev(String name) {
        return netdevs.stream().filter(n -> n.name().equals(name)).findFirst();
    }

    public Optional<PortAttrs> portAttrs(String device, int port) {
        return portAttrs.stream().filter(a -> a.device().equals(device) && a.port() == port).findFirst();
    }

    /** All ports of all devices, in device then port order. */
    public List<RdmaPort> ports() {
        return devices.stream().flatMap(d -> d.ports().stream()).toList();
    }

    public Optional<RdmaDevice> device(String name) {
        return devices.stream().filter(d -> d.name().equals(name)).findFirst();
    }

    public Optional<RdmaPort> port(String device, int port) {
        return device(device).flatMap(d -> d.ports().stream().filter(p -> p.port() == port).findFirst());
    }

    /** The config-space registers of one PCI function, when its config was read. */
    public Optional<PcieConfig> pcieConfig(String address) {
        return pcieConfig.stream().filter(c -> c.address().equals(address)).findFirst();
    }

    /**
     * The PCI function no longer answers: its link status (read every collection) or its config
     * space (read at each identity refresh) reads all ones — it fell off the bus.
     */
    public boolean readsAllOnes(String address) {
        return pciFunction(address).map(PciFunction::linkReadsAllOnes).orElse(false)
                || pcieConfig(address).map(PcieConfig::allOnes).orElse(false);
    }

    public Optional<PciFunction> pciFunction(String address) {
        return pci.stream().filter(f -> f.address().equals(address)).findFirst();
    }

    public Optional<CollectorRun> collector(String name) {
        return collectors.stream().filter(c -> c.name().equals(name)).findFirst();
    }
}
