package io.fabricd.diagnosis.checks;

import io.fabricd.model.GpuDirect;
import io.fabricd.model.HostModel;
import io.fabricd.diagnosis.Check;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.model.finding.Evidence;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Subject;
import io.fabricd.model.finding.Severity;
import java.util.List;

/**
 * {@code gpudirect_off} (critical): NVIDIA GPUs and RDMA devices present but no GPUDirect RDMA
 * path (no peer-memory module, no DMA-BUF path; docs/spec/host-facts.md §5). Without it NCCL stages every transfer
 * through host memory. Not a finding where it does not apply (no GPU or no RDMA device).
 */
public final class GpuDirectOff extends Check.Declared {

    public GpuDirectOff() {
        super("gpudirect_off");
    }

    @Override
    public List<Finding> evaluate(Inputs in, DiagnosisConfig config) {
        HostModel m = in.current();
        GpuDirect g = m.gpuDirect();
        if (g == null || g.enabled() == null || g.enabled()) {
            return List.of();
        }
        Evidence.Builder evidence = Evidence.builder();
        evidence.put("reason", g.reason());
        evidence.texts("checked", g.evidence());
        evidence.put("gpus", m.pci().stream().filter(f -> f.kind().equals("gpu")).count());
        evidence.put("rdma_devices", m.devices().size());
        return List.of(new Finding(id(), Severity.CRITICAL, Subject.HOST, "NVIDIA GPUs and RDMA NICs but no GPUDirect RDMA path",
                evidence, "Load the peer-memory module (`modprobe nvidia-peermem`, shipped with the NVIDIA driver; it needs "
                        + "MLNX_OFED/DOCA-OFED) or use DMA-BUF (kernel >= 5.12, NVIDIA open kernel modules, "
                        + "NCCL_DMABUF_ENABLE=1). Confirm with NCCL_DEBUG=INFO: 'GPU Direct RDMA Enabled'."));
    }
}
