package io.fabricd.collectors.pcie;

import io.fabricd.collectors.CollectContext;
import io.fabricd.collectors.Collector;
import io.fabricd.collectors.model.PciFunction;
import java.util.List;

/**
 * The config space of every PCI function the topology collector tracks (RDMA NICs, GPUs,
 * NVSwitches and the bridges above them): Max Payload and Max Read Request sizes, relaxed
 * ordering, ACS ({@link ConfigSpace}). Read on every collection, since {@code setpci} changes these
 * registers at run time. An unprivileged reader gets the first 64 bytes, which hold none of them:
 * the registers are then unknown, and {@code bytesRead} says so.
 */
public final class PcieConfigCollector implements Collector {

    @Override
    public String name() {
        return "pcie";
    }

    @Override
    public List<String> needs() {
        return List.of("topology");
    }

    @Override
    public void collect(CollectContext ctx) {
        for (PciFunction f : ctx.model().pci()) {
            ctx.optionalBytes(f.path() + "/config").ifPresent(b -> ctx.model().addPcieConfig(ConfigSpace.decode(f.address(), b)));
        }
    }
}
