package io.fabricd.collectors.pcie;

import io.fabricd.collectors.CollectContext;
import io.fabricd.collectors.Slices;
import io.fabricd.collectors.Stage;
import io.fabricd.collectors.topology.TopologySlice;
import io.fabricd.model.Iommu;
import io.fabricd.model.PciFunction;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * How the IOMMU handles the NICs' and GPUs' DMA (docs/spec/host-facts.md §5): the IOMMU units of
 * {@code sys/class/iommu}, each function's {@code iommu_group} and the group's {@code type}, and the
 * IOMMU arguments of {@code proc/cmdline} as evidence. On the live host a missing
 * {@code sys/class/iommu} means the kernel has no IOMMU; in a snapshot it means fabricd did not
 * capture it, and is unknown. A host without NIC or GPU PCI functions (Soft-RoCE alone) has no
 * reading ({@code HostModel.iommu()} null).
 */
public final class IommuCollector extends Stage.Declared<Iommu> {
    static final String UNITS = "sys/class/iommu";
    private static final List<String> ARGS = List.of("intel_iommu=", "amd_iommu=", "iommu=", "iommu.passthrough=", "iommu.strict=");

    public IommuCollector() {
        super("iommu", Iommu.class, TopologySlice.class);
    }

    @Override
    public Iommu collect(CollectContext ctx, Slices in) {
        List<PciFunction> functions = in.get(TopologySlice.class).map(TopologySlice::pci).orElse(List.of()).stream().filter(f -> f.kind().equals("nic") || f.kind().equals("gpu")).toList();
        if (functions.isEmpty()) {
            return null; // no NIC or GPU on PCI (Soft-RoCE alone): nothing whose DMA to judge, nothing read
        }
        List<String> units = ctx.source().exists(UNITS) ? ctx.listOptional(UNITS) : ctx.source().isSnapshot() ? null : List.of();
        List<String> cmdline = ctx.optional("proc/cmdline").map(IommuCollector::iommuArgs).orElse(null);
        List<Iommu.Device> devices = new ArrayList<>();
        for (PciFunction f : functions) {
            String group = ctx.linkName(f.path() + "/iommu_group");
            String type = group == null ? null : ctx.optional(f.path() + "/iommu_group/type").map(String::strip).orElse(null);
            devices.add(new Iommu.Device(f.address(), f.kind(), group, type));
        }
        return new Iommu(units, cmdline, devices);
    }

    static List<String> iommuArgs(String cmdline) {
        return Arrays.stream(cmdline.strip().split("\\s+")).filter(a -> ARGS.stream().anyMatch(a::startsWith)).toList();
    }
}
