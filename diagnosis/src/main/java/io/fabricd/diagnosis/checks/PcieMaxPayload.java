package io.fabricd.diagnosis.checks;

import io.fabricd.model.HostModel;
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
import java.util.TreeMap;

/**
 * {@code pcie_max_payload} (warning): an RDMA NIC's Max Payload size below what every function from it
 * to its root port supports, so each write it makes carries less than the path could. Judged only
 * when the supported size of every function on the path is known; a NIC whose own registers or a
 * bridge's above it cannot be read (gone, blind, malformed: {@link ConfigRegisters}) is not judged.
 */
public final class PcieMaxPayload extends Check.Declared {

    public PcieMaxPayload() {
        super("pcie_max_payload");
    }

    @Override
    public List<Finding> evaluate(Inputs in, DiagnosisConfig config) {
        HostModel m = in.current();
        List<Finding> out = new ArrayList<>();
        for (PcieDeviceControl.Nic n : PcieDeviceControl.nics(m)) {
            if (PcieDeviceControl.pathUnread(m, n).isPresent()) {
                continue;
            }
            Integer mps = n.config().maxPayload();
            Integer allows = n.pathAllows();
            if (mps == null || allows == null || mps >= allows) {
                continue;
            }
            String bdf = n.function().address();
            Evidence.Builder evidence = PcieDeviceControl.evidence(n);
            evidence.put("path_allows_bytes", allows);
            out.add(new Finding(id(), Severity.WARNING, Subject.pci(bdf), "NIC " + bdf + " writes PCIe payloads of at most " + mps
                    + " bytes where its path to the root port allows " + allows, evidence,
                    "Boot with `pci=pcie_bus_perf` (each device's Max Payload set to the most its path allows), or raise it in "
                            + "the BIOS; the ports above must be raised with it (`lspci -t` shows the path)."));
        }
        return out;
    }

    @Override
    public List<NotJudged> notJudged(Inputs in, DiagnosisConfig config) {
        return ConfigRegisters.notJudged(id(), unread(in.current()));
    }

    /** Why each NIC's Max Payload cannot be judged, by the NIC's address: its own registers or a bridge's above it unread. */
    static Map<String, ConfigRegisters.Unread> unread(HostModel m) {
        Map<String, ConfigRegisters.Unread> out = new TreeMap<>();
        for (PcieDeviceControl.Nic n : PcieDeviceControl.nics(m)) {
            PcieDeviceControl.pathUnread(m, n).ifPresent(u -> out.put(n.function().address(), u));
        }
        return out;
    }
}
