package io.fabricd.diagnosis.checks;

import io.fabricd.model.HostModel;
import io.fabricd.model.PciFunction;
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
 * {@code pcie_degraded} (warning): a link narrower than it and its upstream port support (any
 * function), or, for a NIC, slower (GPUs down-clock to 2.5 GT/s when idle, so their speed is not
 * judged; docs/spec/host-facts.md §4.1). The max already takes the upstream port into account, so a Gen5 card in a
 * Gen4 slot is not degraded. A function that reads all ones (its link status, or its config space)
 * is gone: its link is not judged, and the report's not-judged list says so.
 */
public final class PcieDegraded extends Check.Declared {

    public PcieDegraded() {
        super("pcie_degraded");
    }

    @Override
    public List<Finding> evaluate(Inputs in, DiagnosisConfig config) {
        HostModel m = in.current();
        List<Finding> out = new ArrayList<>();
        for (PciFunction f : m.pci()) {
            if (m.readsAllOnes(f.address())) {
                continue;
            }
            boolean narrow = f.width() != null && f.maxWidth() != null && f.width() > 0 && f.width() < f.maxWidth();
            boolean slow = f.kind().equals("nic") && f.speed() != null && f.maxSpeed() != null && f.speed() < f.maxSpeed();
            if (!narrow && !slow) {
                continue;
            }
            Evidence.Builder evidence = Evidence.builder();
            evidence.put("kind", f.kind());
            evidence.put("width", f.width());
            evidence.put("max_width", f.maxWidth());
            evidence.put("speed_gts", f.speed() == null ? null : f.speed() / 1e9);
            evidence.put("max_speed_gts", f.maxSpeed() == null ? null : f.maxSpeed() / 1e9);
            String what = narrow ? "x" + f.width() + " of x" + f.maxWidth() : (f.speed() / 1e9) + " of " + (f.maxSpeed() / 1e9) + " GT/s";
            out.add(new Finding(id(), Severity.WARNING, Subject.pci(f.address()),
                    f.kind() + " " + f.address() + " PCIe link runs " + what, evidence,
                    "Reseat the card or riser and check the slot; confirm with `lspci -vv -s " + f.address()
                            + "` (LnkSta vs LnkCap) and the upstream port's LnkCap."));
        }
        return out;
    }

    @Override
    public List<NotJudged> notJudged(Inputs in, DiagnosisConfig config) {
        HostModel m = in.current();
        Map<String, ConfigRegisters.Unread> gone = new TreeMap<>();
        m.pci().forEach(f -> ConfigRegisters.gone(m, f.address()).ifPresent(u -> gone.put(f.address(), u)));
        return ConfigRegisters.notJudged(id(), gone);
    }
}
