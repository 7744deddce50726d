package io.fabricd.collectors.topology;

import io.fabricd.collectors.CollectContext;
import io.fabricd.collectors.Slices;
import io.fabricd.collectors.Stage;
import io.fabricd.collectors.rdma.RdmaSlice;
import io.fabricd.model.GpuDirect;
import java.util.ArrayList;
import java.util.List;

/**
 * GPUDirect RDMA readiness (docs/spec/host-facts.md §5): NCCL's rule — a peer-memory module is loaded if any of
 * memory_peers/nv_mem/version, memory_peers/nv_mem_nc/version or module/nvidia_peermem/version
 * exists — or the DMA-BUF path (kernel 5.12 or later with NVIDIA's open kernel modules). Only
 * meaningful where NVIDIA GPUs and RDMA devices are both present.
 */
public final class GpuDirectCollector extends Stage.Declared<GpuDirect> {
    static final String[] PEERMEM = {"sys/kernel/mm/memory_peers/nv_mem/version",
        "sys/kernel/mm/memory_peers/nv_mem_nc/version", "sys/module/nvidia_peermem/version"};

    public GpuDirectCollector() {
        super("gpudirect", GpuDirect.class, RdmaSlice.class, TopologySlice.class);
    }

    @Override
    public GpuDirect collect(CollectContext ctx, Slices in) {
        boolean gpus = in.get(TopologySlice.class).map(TopologySlice::pci).orElse(List.of()).stream().anyMatch(f -> f.kind().equals("gpu"));
        boolean nics = !in.get(RdmaSlice.class).map(RdmaSlice::devices).orElse(List.of()).isEmpty();
        if (!gpus || !nics) {
            return new GpuDirect(null, gpus ? "no RDMA device" : "no NVIDIA GPU", List.of());
        }
        List<String> evidence = new ArrayList<>();
        for (String p : PEERMEM) {
            if (ctx.source().exists(p)) {
                evidence.add(p + " present");
            }
        }
        String modules = ctx.optional("proc/modules").orElse("");
        boolean peermemModule = modules.lines().anyMatch(l -> l.startsWith("nvidia_peermem ") || l.startsWith("nv_peer_mem "));
        if (peermemModule) {
            evidence.add("proc/modules lists the peer-memory module");
        }
        if (!evidence.isEmpty()) {
            return new GpuDirect(true, "peer-memory module loaded", evidence);
        }
        String kernel = ctx.source().manifest().map(m -> m.kernel()).orElse(null);
        if (kernel == null) {
            kernel = ctx.optional("proc/sys/kernel/osrelease").map(String::strip).orElse(null);
        }
        String nvidia = ctx.optional("proc/driver/nvidia/version").orElse("");
        boolean open = nvidia.contains("Open Kernel Module");
        boolean dmabufKernel = kernel != null && atLeast(kernel, 5, 12);
        List<String> missing = new ArrayList<>(List.of("no " + String.join(", ", PEERMEM),
                "nvidia_peermem not in proc/modules"));
        if (dmabufKernel && open) {
            return new GpuDirect(true, "DMA-BUF: kernel " + kernel + " with NVIDIA open kernel modules",
                    List.of("kernel " + kernel, "proc/driver/nvidia/version: Open Kernel Module"));
        }
        missing.add(kernel == null ? "kernel version unknown" : dmabufKernel ? "NVIDIA open kernel modules not detected"
                : "kernel " + kernel + " older than 5.12 (no DMA-BUF)");
        return new GpuDirect(false, "no peer-memory module and no DMA-BUF path", missing);
    }

    static boolean atLeast(String release, int major, int minor) {
        String[] p = release.split("[.-]");
        try {
            int ma = Integer.parseInt(p[0]);
            int mi = p.length > 1 ? Integer.parseInt(p[1]) : 0;
            return ma > major || (ma == major && mi >= minor);
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
