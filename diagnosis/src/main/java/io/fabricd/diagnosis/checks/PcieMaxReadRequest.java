package io.fabricd.diagnosis.checks;

import io.fabricd.diagnosis.Check;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.NotJudged;
import io.fabricd.model.finding.Subject;
import io.fabricd.model.finding.Severity;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code pcie_max_read_request} (warning): an RDMA NIC's Max Read Request size below 4096 bytes. The NIC
 * reads what it sends (and GPU memory, over GPUDirect) in requests of at most this size; NVIDIA's
 * tuning for ConnectX is 4096. A NIC whose Device Control cannot be read (gone, blind, malformed:
 * {@link ConfigRegisters}) is not judged, and says so in the report's not-judged list.
 */
public final class PcieMaxReadRequest extends Check.Declared {
    static final int WANT = 4096;

    public PcieMaxReadRequest() {
        super("pcie_max_read_request");
    }

    @Override
    public List<Finding> evaluate(Inputs in, DiagnosisConfig config) {
        List<Finding> out = new ArrayList<>();
        for (PcieDeviceControl.Nic n : PcieDeviceControl.judged(in.current())) {
            Integer mrrs = n.config().maxReadRequest();
            if (mrrs == null || mrrs >= WANT) {
                continue;
            }
            String bdf = n.function().address();
            out.add(new Finding(id(), Severity.WARNING, Subject.pci(bdf), "NIC " + bdf + " reads in PCIe requests of at most " + mrrs
                    + " bytes (Max Read Request; " + WANT + " is the tuned size)", PcieDeviceControl.evidence(n),
                    "Set Max Read Request to 4096 at every boot: `setpci -s " + bdf + " CAP_EXP+8.w=5000:7000` (Device Control "
                            + "bits 14:12 = 5), or in the BIOS where it has the setting."));
        }
        return out;
    }

    @Override
    public List<NotJudged> notJudged(Inputs in, DiagnosisConfig config) {
        return ConfigRegisters.notJudged(id(), PcieDeviceControl.unread(in.current()));
    }
}
