package io.fabricd.diagnosis.checks;

import io.fabricd.model.HostModel;
import io.fabricd.diagnosis.Check;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.model.finding.Evidence;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Subject;
import io.fabricd.model.finding.Severity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code pcie_max_read_request} (warning): an RDMA NIC's Max Read Request size below 4096 bytes. The NIC
 * reads what it sends (and GPU memory, over GPUDirect) in requests of at most this size; NVIDIA's
 * tuning for ConnectX is 4096. A NIC whose config space was read whole but gives no Device Control
 * (it reads all ones, or its capability list is broken) is unknown: one info finding says so for
 * the NIC registers of all three checks (this one, {@code pcie_max_payload},
 * {@code pcie_relaxed_ordering}). Where fabricd read only the first 64 bytes (it lacks
 * CAP_SYS_ADMIN), {@code pcie_config_blind} says so.
 */
public final class PcieMaxReadRequest implements Check {
    static final int WANT = 4096;

    @Override
    public String id() {
        return "pcie_max_read_request";
    }

    @Override
    public List<Finding> evaluate(Inputs in, DiagnosisConfig config) {
        HostModel m = in.current();
        List<Finding> out = new ArrayList<>();
        Map<String, String> unreadable = new java.util.TreeMap<>();
        for (PcieDeviceControl.Nic n : PcieDeviceControl.nics(m)) {
            Integer mrrs = n.config().maxReadRequest();
            String why = PcieDeviceControl.unreadableReason(n.config());
            if (why != null) {
                unreadable.put(n.function().address(), why);
            }
            if (mrrs == null || mrrs >= WANT) {
                continue;
            }
            String bdf = n.function().address();
            out.add(new Finding(id(), Severity.WARNING, Subject.pci(bdf), "NIC " + bdf + " reads in PCIe requests of at most " + mrrs
                    + " bytes (Max Read Request; " + WANT + " is the tuned size)", PcieDeviceControl.evidence(n),
                    "Set Max Read Request to 4096 at every boot: `setpci -s " + bdf + " CAP_EXP+8.w=5000:7000` (Device Control "
                            + "bits 14:12 = 5), or in the BIOS where it has the setting."));
        }
        if (!unreadable.isEmpty()) {
            out.add(new Finding(id(), Severity.INFO, Subject.HOST, "PCIe Device Control of " + unreadable.size() + " NIC function"
                    + (unreadable.size() == 1 ? "" : "s") + " not judged: " + String.join("; ", unreadable.entrySet().stream()
                    .map(e -> e.getKey() + ": " + e.getValue()).toList()), Evidence.builder().put("nics", Evidence.texts(unreadable)),
                    "Read the function's config space with `lspci -vvv -s <pci>`: a function that reads all ones is gone "
                            + "(hardware_missing says so when it was expected); a malformed capability list is a firmware fault."));
        }
        return out;
    }
}
