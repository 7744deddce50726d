package io.fabricd.model;

import java.util.List;

/**
 * GPUDirect RDMA readiness (docs/spec/host-facts.md §5). {@code enabled} is null where it does not apply (no NVIDIA
 * GPU or no RDMA device on the host).
 *
 * @param evidence what was found or missing (paths, module lines)
 */
public record GpuDirect(Boolean enabled, String reason, List<String> evidence) {
    public GpuDirect {
        evidence = List.copyOf(evidence);
    }
}
