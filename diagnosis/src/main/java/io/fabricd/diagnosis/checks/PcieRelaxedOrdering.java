package io.fabricd.diagnosis.checks;

import io.fabricd.model.HostModel;
import io.fabricd.diagnosis.Check;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.NotJudged;
import io.fabricd.model.finding.Subject;
import io.fabricd.model.finding.Severity;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code pcie_relaxed_ordering} (info): relaxed ordering off in an RDMA NIC's Device Control. Writes
 * that may pass each other raise what a NIC moves into GPU and host memory. The kernel itself clears
 * it below root ports known to mishandle it (its PCI quirks, logged once at boot), which the config
 * space does not show: whether it is off on purpose cannot be judged, hence info, and the finding
 * says to check the kernel's log first. A NIC whose Device Control cannot be read is not judged
 * ({@link ConfigRegisters}).
 */
public final class PcieRelaxedOrdering extends Check.Declared {

    public PcieRelaxedOrdering() {
        super("pcie_relaxed_ordering");
    }

    @Override
    public List<Finding> evaluate(Inputs in, DiagnosisConfig config) {
        HostModel m = in.current();
        List<Finding> out = new ArrayList<>();
        for (PcieDeviceControl.Nic n : PcieDeviceControl.judged(m)) {
            if (!Boolean.FALSE.equals(n.config().relaxedOrdering())) {
                continue;
            }
            String bdf = n.function().address();
            out.add(new Finding(id(), Severity.INFO, Subject.pci(bdf), "NIC " + bdf + " has PCIe relaxed ordering off",
                    PcieDeviceControl.evidence(n),
                    "Unless the kernel turned it off for the root port above (its relaxed-ordering quirks; `dmesg | grep -i "
                            + "'relaxed ordering'`), enable it at every boot: `setpci -s " + bdf + " CAP_EXP+8.w=0010:0010`."));
        }
        return out;
    }

    @Override
    public List<NotJudged> notJudged(Inputs in, DiagnosisConfig config) {
        return ConfigRegisters.notJudged(id(), PcieDeviceControl.unread(in.current()));
    }
}
