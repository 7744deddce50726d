package io.fabricd.collectors.pcie;

import io.fabricd.collectors.CollectContext;
import io.fabricd.collectors.Slices;
import io.fabricd.collectors.Stage;
import io.fabricd.collectors.topology.TopologySlice;
import io.fabricd.model.PciFunction;
import io.fabricd.model.PcieConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * The config space of every PCI function the topology collector tracks (RDMA NICs, GPUs,
 * NVSwitches and the bridges above them): Max Payload and Max Read Request sizes, relaxed
 * ordering, ACS ({@link ConfigSpace}). An unprivileged reader gets the first 64 bytes, which hold
 * none of them: the registers are then unknown, and {@code bytesRead} says so.
 *
 * <p>The config bytes are kept between the agent's collections as the hardware's identity is
 * ({@link io.fabricd.collectors.source.StableReads}): read again every {@code collection.identity_refresh}
 * (5 min) and when a function comes or goes. The kernel reads a 4 KiB config space one dword at a
 * time, 1 024 config-space accesses per function, while the registers change only when someone
 * runs {@code setpci}: a fix shows within the refresh.
 */
public final class PcieConfigCollector extends Stage.Declared<PcieSlice> {

    public PcieConfigCollector() {
        super("pcie", PcieSlice.class, TopologySlice.class);
    }

    @Override
    public PcieSlice collect(CollectContext ctx, Slices in) {
        List<PcieConfig> out = new ArrayList<>();
        for (PciFunction f : in.get(TopologySlice.class).map(TopologySlice::pci).orElse(List.of())) {
            ctx.optionalBytes(f.path() + "/config").ifPresent(b -> out.add(ConfigSpace.decode(f.address(), b)));
        }
        return new PcieSlice(out);
    }
}
