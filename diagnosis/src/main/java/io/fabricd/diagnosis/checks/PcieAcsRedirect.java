package io.fabricd.diagnosis.checks;

import io.fabricd.model.GpuNicPath;
import io.fabricd.model.HostModel;
import io.fabricd.model.PciFunction;
import io.fabricd.model.PcieConfig;
import io.fabricd.model.RdmaDevice;
import io.fabricd.model.PciPaths;
import io.fabricd.diagnosis.Check;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.model.finding.Evidence;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Subject;
import io.fabricd.model.finding.Severity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * {@code pcie_acs_redirect} (warning): ACS on a PCIe switch port between a GPU and an RDMA NIC that
 * share the switch (path PIX or PXB) redirects their peer-to-peer traffic up to the root complex
 * (P2P Request or Completion Redirect) or may block it (Egress Control): GPUDirect RDMA's bandwidth
 * collapses, or transfers hang where the IOMMU refuses them (NCCL's troubleshooting guide, docs/spec/host-facts.md §5).
 * One finding per bridge, naming the pairs whose path crosses it. A bridge whose config space was
 * read whole but has no extended space (256 bytes: the platform gives no extended config access)
 * is unknown: one info finding names those bridges. One read only to 64 bytes (fabricd lacks
 * CAP_SYS_ADMIN) is {@code pcie_config_blind}'s to say, for every PCIe check at once.
 */
public final class PcieAcsRedirect implements Check {

    @Override
    public String id() {
        return "pcie_acs_redirect";
    }

    /**
     * The bridges between a GPU and an RDMA NIC that share a switch (path PIX or PXB), each with the
     * pairs whose peer-to-peer path crosses it: what this check judges.
     */
    static Map<String, List<String>> judgedBridges(HostModel m) {
        Map<String, List<String>> out = new TreeMap<>();
        for (GpuNicPath p : m.gpuNicPaths()) {
            if (!"PIX".equals(p.path()) && !"PXB".equals(p.path())) {
                continue;
            }
            Optional<PciFunction> gpu = m.pciFunction(p.gpu());
            Optional<PciFunction> nic = m.device(p.device()).map(RdmaDevice::pciAddress).flatMap(m::pciFunction);
            if (gpu.isEmpty() || nic.isEmpty()) {
                continue;
            }
            for (String bridge : PciPaths.bridgesBetween(gpu.get().path(), nic.get().path())) {
                out.computeIfAbsent(bridge, k -> new ArrayList<>()).add("GPU " + p.gpu() + " <-> " + p.device() + " (" + p.path() + ")");
            }
        }
        return out;
    }

    @Override
    public List<Finding> evaluate(Inputs in, DiagnosisConfig config) {
        HostModel m = in.current();
        Map<String, List<String>> pairsByBridge = new TreeMap<>();
        Set<String> unread = new TreeSet<>();
        judgedBridges(m).forEach((bridge, pairs) -> {
            Optional<PcieConfig> read = m.pcieConfig(bridge);
            // read whole, yet without the extended space; a truncated read is pcie_config_blind's, all ones a gone function
            if (read.isPresent() && !read.get().extendedRead() && !read.get().truncated() && !read.get().allOnes()) {
                unread.add(bridge);
            }
            PcieConfig.Acs acs = read.map(PcieConfig::acs).orElse(null);
            if (acs != null && acs.redirects()) {
                pairsByBridge.put(bridge, pairs);
            }
        });
        List<Finding> out = new ArrayList<>();
        pairsByBridge.forEach((bridge, pairs) -> {
            PcieConfig.Acs acs = m.pcieConfig(bridge).orElseThrow().acs();
            Evidence.Builder evidence = Evidence.builder();
            evidence.put("acs_control", acs.describeControl());
            evidence.put("acs_capability", String.format("0x%04x", acs.capability()));
            evidence.texts("pairs", pairs);
            evidence.put("confirm", "lspci -vvv -s " + bridge + " | grep ACSCtl");
            out.add(new Finding(id(), Severity.WARNING, Subject.pci(bridge),
                    "ACS on PCIe bridge " + bridge + " sends GPU-NIC peer-to-peer traffic up to the root complex ("
                            + pairs.size() + " pair" + (pairs.size() == 1 ? "" : "s") + ")", evidence,
                    "Turn ACS redirect off on the switch ports between GPUs and NICs: in the BIOS (the PCIe ACS setting), or at "
                            + "every boot `setpci -s " + bridge + " ECAP_ACS+0x6.w=0000` (NCCL's troubleshooting guide). On a "
                            + "host that passes devices into VMs ACS isolates them: keep it there and enable ATS on the NIC instead."));
        });
        if (!unread.isEmpty()) {
            out.add(new Finding(id(), Severity.INFO, Subject.HOST, "ACS on " + unread.size() + " PCIe bridge" + (unread.size() == 1 ? "" : "s")
                    + " between GPUs and NICs not judged: their config space was read whole but without the extended space "
                    + "(past 256 bytes) ACS is in",
                    Evidence.builder().texts("bridges", List.copyOf(unread)).numbers("config_bytes_read",
                            unread.stream().map(b -> m.pcieConfig(b).orElseThrow().bytesRead()).distinct().sorted().toList()),
                    "The platform gives no extended config access (MMCONFIG/ECAM off or unsupported; `dmesg | grep -i mmconfig`): "
                            + "`lspci -vvv | grep ACSCtl` as root shows what the kernel can read, the BIOS's PCIe ACS setting what is set."));
        }
        return out;
    }
}
