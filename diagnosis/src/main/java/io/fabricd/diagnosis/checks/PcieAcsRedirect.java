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
import io.fabricd.model.finding.NotJudged;
import io.fabricd.model.finding.Subject;
import io.fabricd.model.finding.Severity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * {@code pcie_acs_redirect} (warning): ACS on a PCIe switch port between a GPU and an RDMA NIC that
 * share the switch (path PIX or PXB) redirects their peer-to-peer traffic up to the root complex
 * (P2P Request or Completion Redirect) or may block it (Egress Control): GPUDirect RDMA's bandwidth
 * collapses, or transfers hang where the IOMMU refuses them (NCCL's troubleshooting guide, docs/spec/host-facts.md §5).
 * One finding per bridge, naming the pairs whose path crosses it. A bridge whose ACS cannot be read
 * (gone, blind — 64 bytes without CAP_SYS_ADMIN, 256 without extended config access — or a malformed
 * extended capability list: {@link ConfigRegisters}) is not judged, and says so in the report's
 * not-judged list.
 */
public final class PcieAcsRedirect extends Check.Declared {

    public PcieAcsRedirect() {
        super("pcie_acs_redirect");
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
        List<Finding> out = new ArrayList<>();
        judgedBridges(m).forEach((bridge, pairs) -> {
            PcieConfig.Acs acs = m.pcieConfig(bridge).map(PcieConfig::acs).orElse(null);
            if (acs == null || !acs.redirects() || ConfigRegisters.acs(m, bridge).isPresent()) {
                return;
            }
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
        return out;
    }

    @Override
    public List<NotJudged> notJudged(Inputs in, DiagnosisConfig config) {
        return ConfigRegisters.notJudged(id(), unread(in.current()));
    }

    /** Why the ACS of each bridge this check judges cannot be read, by the bridge's address. */
    static Map<String, ConfigRegisters.Unread> unread(HostModel m) {
        Map<String, ConfigRegisters.Unread> out = new TreeMap<>();
        for (String bridge : judgedBridges(m).keySet()) {
            ConfigRegisters.acs(m, bridge).ifPresent(u -> out.put(bridge, u));
        }
        return out;
    }
}
