package io.fabricd.collectors;

import io.fabricd.model.GpuDirect;
import io.fabricd.model.GpuNicPath;
import io.fabricd.model.HostFacts;
import io.fabricd.model.Iommu;
import io.fabricd.model.NetdevInfo;
import io.fabricd.model.PciFunction;
import io.fabricd.model.PcieConfig;
import io.fabricd.model.PortAttrs;
import io.fabricd.model.QpSummary;
import io.fabricd.model.RdmaDevice;
import io.fabricd.model.RdmaPort;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/**
 * The part of a {@link io.fabricd.model.HostModel} collectors fill in; one per
 * collection. Collectors run in order, so later ones read what earlier ones found (the netdev
 * collector reads the RDMA ports' netdevs).
 */
public final class HostModelBuilder {
    private final List<RdmaDevice> devices = new ArrayList<>();
    private final Map<String, NetdevInfo> netdevs = new TreeMap<>();
    private final List<PortAttrs> portAttrs = new ArrayList<>();
    private final List<QpSummary> qps = new ArrayList<>();
    private final List<PciFunction> pci = new ArrayList<>();
    private final List<GpuNicPath> paths = new ArrayList<>();
    private HostFacts hostFacts;
    private GpuDirect gpuDirect = new GpuDirect(null, "not checked", List.of());
    private final List<PcieConfig> pcieConfig = new ArrayList<>();
    private Iommu iommu;

    public void addDevice(RdmaDevice d) {
        devices.add(d);
    }

    /** Devices found so far, sorted by name. */
    public List<RdmaDevice> devices() {
        List<RdmaDevice> sorted = new ArrayList<>(devices);
        sorted.sort(Comparator.comparing(RdmaDevice::name));
        return sorted;
    }

    public List<RdmaPort> ports() {
        return devices().stream().flatMap(d -> d.ports().stream()).toList();
    }

    public void putNetdev(NetdevInfo n) {
        netdevs.put(n.name(), n);
    }

    public void updateNetdev(String name, UnaryOperator<NetdevInfo> f) {
        netdevs.computeIfPresent(name, (k, v) -> f.apply(v));
    }

    public List<NetdevInfo> netdevs() {
        return List.copyOf(netdevs.values());
    }

    public void addPortAttrs(PortAttrs a) {
        portAttrs.add(a);
    }

    public List<PortAttrs> portAttrs() {
        return List.copyOf(portAttrs);
    }

    private final Map<String, Long> maxQp = new TreeMap<>();

    /** ibv_query_device max_qp, recorded by the verbs collector for the QP collector. */
    public void maxQp(String device, Long value) {
        if (value != null) {
            maxQp.put(device, value);
        }
    }

    public Long maxQp(String device) {
        return maxQp.get(device);
    }

    public void addQps(QpSummary q) {
        qps.add(q);
    }

    public List<QpSummary> qps() {
        return List.copyOf(qps);
    }

    public void addPci(PciFunction f) {
        pci.add(f);
    }

    public List<PciFunction> pci() {
        List<PciFunction> sorted = new ArrayList<>(pci);
        sorted.sort(Comparator.comparing(PciFunction::address));
        return sorted;
    }

    public void addPath(GpuNicPath p) {
        paths.add(p);
    }

    public List<GpuNicPath> paths() {
        return List.copyOf(paths);
    }

    public void hostFacts(HostFacts f) {
        hostFacts = f;
    }

    public HostFacts hostFacts() {
        return hostFacts;
    }

    public void gpuDirect(GpuDirect g) {
        gpuDirect = g;
    }

    public GpuDirect gpuDirect() {
        return gpuDirect;
    }

    public void addPcieConfig(PcieConfig c) {
        pcieConfig.add(c);
    }

    /** Sorted by address. */
    public List<PcieConfig> pcieConfig() {
        List<PcieConfig> sorted = new ArrayList<>(pcieConfig);
        sorted.sort(Comparator.comparing(PcieConfig::address));
        return sorted;
    }

    public void iommu(Iommu i) {
        iommu = i;
    }

    /** Null when the IOMMU collector did not run. */
    public Iommu iommu() {
        return iommu;
    }
}
