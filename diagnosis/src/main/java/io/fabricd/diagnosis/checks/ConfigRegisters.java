package io.fabricd.diagnosis.checks;

import io.fabricd.model.HostModel;
import io.fabricd.model.PciFunction;
import io.fabricd.model.PcieConfig;
import io.fabricd.model.finding.NotJudged;
import io.fabricd.model.finding.Subject;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Why a PCIe check cannot read a register of a function's config space, in one place for every
 * check: the function is gone (it reads all ones, in its config space or its link status), fabricd
 * is blind to it (the read stopped before the capability), or the capability list that leads to it
 * is malformed. A function whose config was never read (a snapshot without {@code config} files)
 * has no reading at all and is not listed: unknown, as a missing side-car is.
 */
final class ConfigRegisters {
    private ConfigRegisters() {
    }

    /**
     * Why a register of {@code pci} is unknown, in words that say what to do.
     *
     * @param pci the function whose read is at fault (a NIC's own, or a bridge above it)
     */
    record Unread(String pci, NotJudged.Reason reason, String detail) {
        NotJudged of(String check, Subject subject) {
            return new NotJudged(check, subject, reason, detail);
        }
    }

    /** Why the PCI Express capability of {@code pci} (Device Capabilities, Device Control) cannot be read; empty when it can. */
    static Optional<Unread> express(HostModel m, String pci) {
        return m.pcieConfig(pci).flatMap(c -> gone(m, pci).or(() -> unread(m, c, c.capabilities())));
    }

    /**
     * Why the ACS capability of {@code pci} cannot be read; empty when it can, or when the function
     * has no extended space (its whole, well-formed list has no PCI Express capability: conventional PCI).
     */
    static Optional<Unread> acs(HostModel m, String pci) {
        return m.pcieConfig(pci).flatMap(c -> gone(m, pci).or(() -> {
            boolean conventional = c.capabilities().whole() && c.maxReadRequest() == null && !c.truncated();
            return conventional ? Optional.empty() : unread(m, c, c.extendedCapabilities());
        }));
    }

    /**
     * Why nothing read from {@code pci} is a value: it reads all ones, in its link status (read every
     * collection) or its config space; empty while it answers.
     */
    static Optional<Unread> gone(HostModel m, String pci) {
        if (!m.readsAllOnes(pci)) {
            return Optional.empty();
        }
        Optional<PciFunction> f = m.pciFunction(pci);
        String what = f.filter(PciFunction::linkReadsAllOnes).map(x -> "its link status: width " + x.width()).orElse("its config space");
        return Optional.of(new Unread(pci, NotJudged.Reason.GONE, name(m, pci) + " reads all ones (" + what
                + "): it no longer answers, and nothing read from it is a value. hardware_missing says whether it was expected; "
                + "`lspci -s " + pci + "` whether it is still on the bus."));
    }

    private static Optional<Unread> unread(HostModel m, PcieConfig c, PcieConfig.Walk walk) {
        String who = name(m, c.address()) + ": ";
        String bdf = c.address();
        return switch (walk.outcome()) {
            case WHOLE, GONE -> Optional.empty();
            case CUT -> Optional.of(new Unread(bdf, NotJudged.Reason.BLIND, who + walk.problem() + ". " + (c.truncated()
                    ? "Reading the capabilities past byte 64 takes CAP_SYS_ADMIN (pcie_config_blind)."
                    : "The platform gives no extended config access (MMCONFIG/ECAM off or unsupported: `dmesg | grep -i mmconfig`); "
                    + "`lspci -vvv -s " + bdf + "` as root shows what the kernel can read.")));
            case MALFORMED -> Optional.of(new Unread(bdf, NotJudged.Reason.MALFORMED, who + walk.problem()
                    + ": nothing is decoded from that list. `lspci -vvv -s " + bdf + "` prints it as far as it goes and `lspci -xxxx -s "
                    + bdf + "` its bytes; a capability list the card's firmware got wrong: update the firmware or report it to the vendor."));
        };
    }

    /** One entry per subject of {@code unread} (its PCI address), for {@code check}. */
    static List<NotJudged> notJudged(String check, Map<String, Unread> unread) {
        return unread.entrySet().stream().map(e -> e.getValue().of(check, Subject.pci(e.getKey()))).toList();
    }

    /** "nic 0000:19:00.0", "bridge 0000:17:01.0". */
    static String name(HostModel m, String pci) {
        return m.pciFunction(pci).map(PciFunction::kind).orElse("function") + " " + pci;
    }
}
