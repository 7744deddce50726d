package io.fabricd.diagnosis.checks;

import io.fabricd.model.HostModel;
import io.fabricd.model.PciFunction;
import io.fabricd.model.PcieConfig;
import io.fabricd.diagnosis.Check;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.model.finding.Evidence;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.NotJudged;
import io.fabricd.model.finding.Subject;
import io.fabricd.model.finding.Severity;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code pcie_config_blind} (info): fabricd read the config space of PCI functions it tracks only
 * in part ({@link PcieConfig#truncated}: the kernel gives a reader without CAP_SYS_ADMIN the first
 * 64 bytes of {@code config}, a snapshot taken by one holds that much), so the PCIe checks that
 * need the capability list past byte 64 cannot judge them: {@code pcie_max_read_request},
 * {@code pcie_max_payload}, {@code pcie_relaxed_ordering} (the PCI Express capability, within the
 * first 256 bytes) and {@code pcie_acs_redirect} (the ACS extended capability, past 256). Which
 * check could not judge which subject is the report's not-judged list; this finding names the
 * cause and its remedy once per host, listing the cut functions. A function that reads all ones is
 * not blind but gone, and a whole 256-byte read without extended space is not for CAP_SYS_ADMIN to
 * fix. Not an incident: no alert.
 */
public final class PcieConfigBlind extends Check.Declared {
    /** The checks that read config space past its first 64 bytes, in the order the summary names them. */
    static final List<String> NEEDS_CAPABILITIES = List.of("pcie_acs_redirect", "pcie_max_read_request", "pcie_max_payload",
            "pcie_relaxed_ordering");

    public PcieConfigBlind() {
        super("pcie_config_blind");
    }

    @Override
    public boolean explainsNotJudged() {
        return true;
    }

    @Override
    public List<Finding> evaluate(Inputs in, DiagnosisConfig config) {
        HostModel m = in.current();
        List<PcieConfig> cut = m.pcieConfig().stream().filter(c -> c.truncated() && !m.readsAllOnes(c.address())).toList();
        if (cut.isEmpty()) {
            return List.of();
        }
        List<Evidence> functions = new ArrayList<>();
        Set<Integer> sizes = new TreeSet<>();
        for (PcieConfig c : cut.stream().sorted(Comparator.comparing(PcieConfig::address)).toList()) {
            Evidence.Builder f = Evidence.builder();
            f.put("pci", c.address());
            f.put("kind", m.pciFunction(c.address()).map(PciFunction::kind).orElse(""));
            f.put("config_bytes_read", c.bytesRead());
            functions.add(f.build());
            sizes.add(c.bytesRead());
        }
        List<String> checks = blindChecks(m);

        String bytes = String.join(" or ", sizes.stream().map(String::valueOf).toList());
        String what = cut.size() + " PCI function" + (cut.size() == 1 ? "" : "s");
        String summary = "PCIe checks blind: fabricd read only " + bytes + " bytes of the config space of " + what
                + (checks.isEmpty() ? " (no PCIe check reads " + (cut.size() == 1 ? "its" : "their") + " registers on this host)"
                : ", so " + String.join(", ", checks) + " cannot judge " + (cut.size() == 1 ? "it" : "them"))
                + "; reading the capabilities past byte 64 takes CAP_SYS_ADMIN";

        Evidence.Builder evidence = Evidence.builder();
        evidence.numbers("config_bytes_read", List.copyOf(sizes));
        evidence.objects("functions", functions);
        String bdf = cut.get(0).address();
        evidence.put("confirm", "as fabricd's user `lspci -vvv -s " + bdf + "` prints `Capabilities: <access denied>`, and "
                + "`od -v -An -tx1 /sys/bus/pci/devices/" + bdf + "/config | wc -l` gives 4 lines (64 bytes) without CAP_SYS_ADMIN, "
                + "16 or 256 with it");
        return List.of(new Finding(id(), Severity.INFO, Subject.HOST, summary, evidence,
                "Give fabricd CAP_SYS_ADMIN to read whole config spaces (it only reads them, never writes): with the Helm chart "
                        + "set `pcie.fullConfigSpace: true`; under systemd add `AmbientCapabilities=CAP_SYS_ADMIN` to the unit; "
                        + "or run `fabricd diagnose` as root for a one-off verdict. CAP_SYS_ADMIN is a broad capability: "
                        + "leaving these checks blind is a choice, then add pcie_config_blind to diagnosis.disabled_checks."));
    }

    /**
     * Which of {@link #NEEDS_CAPABILITIES} a cut read leaves without a register they judge: those
     * that could not judge a subject because a read of 64 bytes (a function of {@link PcieConfig#truncated})
     * stopped before it.
     */
    static List<String> blindChecks(HostModel m) {
        Map<String, Map<String, ConfigRegisters.Unread>> unread = Map.of("pcie_acs_redirect", PcieAcsRedirect.unread(m),
                "pcie_max_read_request", PcieDeviceControl.unread(m), "pcie_max_payload", PcieMaxPayload.unread(m),
                "pcie_relaxed_ordering", PcieDeviceControl.unread(m));
        return NEEDS_CAPABILITIES.stream().filter(check -> unread.get(check).values().stream()
                .anyMatch(u -> u.reason() == NotJudged.Reason.BLIND && m.pcieConfig(u.pci()).map(PcieConfig::truncated).orElse(false)))
                .toList();
    }
}
