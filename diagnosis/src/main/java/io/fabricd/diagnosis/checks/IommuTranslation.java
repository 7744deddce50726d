package io.fabricd.diagnosis.checks;

import io.fabricd.model.HostModel;
import io.fabricd.model.Iommu;
import io.fabricd.diagnosis.Check;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.model.finding.Evidence;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Subject;
import io.fabricd.model.finding.Severity;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code iommu_translation} (warning): on a host with NVIDIA GPUs and RDMA NICs, the IOMMU
 * translates the DMA of some of them (their IOMMU group's type is DMA or DMA-FQ): peer-to-peer
 * transfers between a GPU and a NIC are then translated or refused, and GPUDirect RDMA is slow or
 * fails. NVIDIA's guidance for bare metal is the IOMMU off or in passthrough (docs/spec/host-facts.md §5). Judged
 * only from the group's type file (kernel 5.11 and later); without it the mode is unknown and gives
 * no finding.
 */
public final class IommuTranslation extends Check.Declared {

    public IommuTranslation() {
        super("iommu_translation");
    }

    @Override
    public List<Finding> evaluate(Inputs in, DiagnosisConfig config) {
        HostModel m = in.current();
        Iommu iommu = m.iommu();
        if (iommu == null || m.gpuDirect() == null || m.gpuDirect().enabled() == null) {
            return List.of(); // no IOMMU reading, or no GPU and RDMA device together
        }
        List<Evidence> translated = new ArrayList<>();
        for (Iommu.Device d : iommu.devices()) {
            if ("translated".equals(iommu.mode(d))) {
                Evidence.Builder e = Evidence.builder();
                e.put("pci", d.address());
                e.put("kind", d.kind());
                e.put("iommu_group", d.group());
                e.put("type", d.type());
                translated.add(e.build());
            }
        }
        if (translated.isEmpty()) {
            return List.of();
        }
        Evidence.Builder evidence = Evidence.builder();
        evidence.objects("translated", translated);
        evidence.texts("iommu_units", iommu.units());
        evidence.texts("cmdline", iommu.cmdline());
        evidence.put("confirm", "cat /sys/bus/pci/devices/" + translated.get(0).text("pci") + "/iommu_group/type; cat /proc/cmdline");
        return List.of(new Finding(id(), Severity.WARNING, Subject.HOST,
                "the IOMMU translates the DMA of " + translated.size() + " GPU/NIC function" + (translated.size() == 1 ? "" : "s")
                        + ": GPUDirect RDMA peer-to-peer goes through it", evidence,
                "On bare metal put the IOMMU in passthrough: add `iommu=pt` to the kernel command line (beside `intel_iommu=on` "
                        + "on Intel; AMD is on by default) and reboot, or turn the IOMMU (VT-d, AMD-Vi) off in the BIOS. In a VM "
                        + "that passes the GPU and NIC through, keep it and enable ATS on the NIC and ACS on the switch ports."));
    }
}
