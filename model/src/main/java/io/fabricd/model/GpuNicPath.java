package io.fabricd.model;

/**
 * The PCIe path class between a GPU and an RDMA device (nvidia-smi topo: PIX, PXB, PHB, NODE, SYS;
 * docs/spec/host-facts.md §4.2). {@code path} is null when it cannot be told (different host bridges and a
 * numa_node of -1: NODE or SYS).
 */
public record GpuNicPath(String gpu, String device, String path, String reason) {
}
