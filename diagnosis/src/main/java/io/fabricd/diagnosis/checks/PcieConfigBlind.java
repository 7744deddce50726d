package io.fabricd.diagnosis.checks;

import io.fabricd.model.HostModel;
import io.fabricd.model.PciFunction;
import io.fabricd.model.PcieConfig;
import io.fabricd.diagnosis.Check;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.model.finding.Evidence;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Subject;
import io.fabricd.model.finding.Severity;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
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
 * first 256 bytes) and {@code pcie_acs_redirect} (the ACS extended capability, past 256). Those
 * checks then say nothing; this finding says why, once per host, listing the functions and which
 * check each blinds. A function that reads all ones is not blind but gone (hardware_missing), and a
 * whole 256-byte read without extended space is pcie_acs_redirect's own info. Not an incident: no
 * alert.
 */
public final class PcieConfigBlind implements Check {
    /** The checks that read config space past its first 64 bytes, in the order the summary names them. */
    static final List<String> NEEDS_CAPABILITIES = List.of("pcie_acs_redirect", "pcie_max_read_request", "pcie_max_payload",
            "pcie_relaxed_ordering");

    @Override
    public String id() {
        return "pcie_config_blind";
    }

    @Override
    public List<Finding> evaluate(Inputs in, DiagnosisConfig config) {
        HostModel m = in.current();
        List<PcieConfig> cut = m.pcieConfig().stream().filter(c -> c.truncated() && !m.readsAllOnes(c.address())).toList();
        if (cut.isEmpty()) {
            return List.of();
        }
        Map<String, Set<String>> blind = blindChecks(m);
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
        List<String> checks = NEEDS_CAPABILITIES.stream().filter(blind::containsKey).toList();
        Evidence.Builder blindBy = Evidence.builder();
        checks.forEach(id -> blindBy.texts(id, List.copyOf(blind.get(id))));

        String bytes = String.join(" or ", sizes.stream().map(String::valueOf).toList());
        String what = cut.size() + " PCI function" + (cut.size() == 1 ? "" : "s");
        String summary = "PCIe checks blind: fabricd read only " + bytes + " bytes of the config space of " + what
                + (checks.isEmpty() ? " (no PCIe check reads " + (cut.size() == 1 ? "its" : "their") + " registers on this host)"
                : ", so " + String.join(", ", checks) + " cannot judge " + (cut.size() == 1 ? "it" : "them"))
                + "; reading the capabilities past byte 64 takes CAP_SYS_ADMIN";

        Evidence.Builder evidence = Evidence.builder();
        evidence.numbers("config_bytes_read", List.copyOf(sizes));
        evidence.objects("functions", functions);
        evidence.put("blind_checks", blindBy.build());
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
     * Which of {@link #NEEDS_CAPABILITIES} a truncated read leaves without a register they judge, and
     * the functions for each: a NIC's Device Control and Capabilities (the three NIC checks), the
     * supported Max Payload of the bridges above a NIC, the ACS of the bridges between a GPU and a
     * NIC that share a switch.
     */
    static Map<String, Set<String>> blindChecks(HostModel m) {
        Map<String, Set<String>> out = new LinkedHashMap<>();
        for (PcieDeviceControl.Nic n : PcieDeviceControl.nics(m)) {
            PcieConfig c = n.config();
            if (blinded(m, c)) {
                String bdf = c.address();
                if (c.maxReadRequest() == null) {
                    out.computeIfAbsent("pcie_max_read_request", k -> new TreeSet<>()).add(bdf);
                }
                if (c.maxPayload() == null || c.maxPayloadSupported() == null) {
                    out.computeIfAbsent("pcie_max_payload", k -> new TreeSet<>()).add(bdf);
                }
                if (c.relaxedOrdering() == null) {
                    out.computeIfAbsent("pcie_relaxed_ordering", k -> new TreeSet<>()).add(bdf);
                }
            }
            for (PcieConfig b : n.path()) {
                if (b != null && blinded(m, b) && b.maxPayloadSupported() == null) {
                    out.computeIfAbsent("pcie_max_payload", k -> new TreeSet<>()).add(b.address());
                }
            }
        }
        for (String bridge : PcieAcsRedirect.judgedBridges(m).keySet()) {
            m.pcieConfig(bridge).filter(b -> blinded(m, b))
                    .ifPresent(b -> out.computeIfAbsent("pcie_acs_redirect", k -> new TreeSet<>()).add(bridge));
        }
        return out;
    }

    private static boolean blinded(HostModel m, PcieConfig c) {
        return c.truncated() && !m.readsAllOnes(c.address());
    }
}
