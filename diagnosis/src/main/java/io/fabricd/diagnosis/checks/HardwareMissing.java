package io.fabricd.diagnosis.checks;

import io.fabricd.model.HostModel;
import io.fabricd.model.PciFunction;
import io.fabricd.model.RdmaDevice;
import io.fabricd.model.RdmaPort;
import io.fabricd.diagnosis.Check;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.model.finding.Evidence;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Subject;
import io.fabricd.model.finding.Severity;
import io.fabricd.diagnosis.inventory.Inventory;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@code hardware_missing}: what the host's inventory expects and the host no longer has — an RDMA
 * device (its driver unbound after a firmware fatal error, the card died), a port of a present
 * device, a port's netdev, a GPU, NVSwitch or NIC PCI function that left the bus or whose config
 * space reads all ones. Critical, but a missing netdev (warning: the port may still carry RDMA).
 * Without an inventory it still says when the host has no RDMA device at all, unless
 * {@code diagnosis.expect_rdma_devices} is false or an accepted inventory has none.
 */
public final class HardwareMissing extends Check.Declared {
    /** The first sentence of every remediation: what a pager's line shows (fabric_finding_text). */
    private static final String FIRST = "If this was intended (a card removed or replaced), run `fabricd inventory accept` on the node; "
            + "otherwise drain it and ";

    public HardwareMissing() {
        super("hardware_missing");
    }

    @Override
    public List<Finding> evaluate(Inputs in, DiagnosisConfig config) {
        HostModel m = in.current();
        Inventory inv = in.inventory();
        List<Finding> out = new ArrayList<>();
        if (m.devices().isEmpty() && (inv == null || inv.devices().isEmpty()) && config.expectRdmaDevices()
                && (inv == null || !inv.expectsNoRdma())) {
            Evidence.Builder ev = Evidence.builder();
            ev.put("rdma_devices", 0);
            ev.put("read", "sys/class/infiniband");
            out.add(new Finding(id(), Severity.CRITICAL, Subject.HOST, "this host has no RDMA device: no job can use RDMA here", ev,
                    "Check that the NIC driver is loaded (`lsmod | grep -e mlx5_ib -e ib_core`, `dmesg | grep -i -e mlx5 -e fatal`) "
                            + "and the card is seen (`lspci -d 15b3:`); reload the driver or reset the card. On a host that has no "
                            + "RDMA NIC on purpose set diagnosis.expect_rdma_devices: false, or run `fabricd inventory accept`."));
        }
        if (inv == null) {
            return out;
        }
        Set<String> reportedPci = new HashSet<>();
        for (Inventory.Device d : inv.devices()) {
            Optional<RdmaDevice> present = inv.match(m, d);
            if (present.isEmpty()) {
                Subject subject = Subject.device(d.name()).withPci(d.pci());
                if (d.pci() != null) {
                    reportedPci.add(d.pci());
                }
                Evidence.Builder ev = Evidence.builder();
                ev.put("expected_since", inv.acceptedAt());
                ev.put("node_guid", d.nodeGuid());
                ev.put("pci", d.pci());
                // fabricd finds a NIC's function through its RDMA device: without the device, whether the
                // function is still on the bus is not known here (lspci tells)
                ev.put("pci_function", d.pci() == null ? null : m.pciFunction(d.pci()).isPresent()
                        ? (m.readsAllOnes(d.pci()) ? "reads all ones" : "present, no RDMA device on it") : "not known without its RDMA device");
                ev.put("ports", d.ports().size());
                out.add(new Finding(id(), Severity.CRITICAL, subject, "RDMA device " + d.name()
                        + (d.pci() == null ? "" : " (PCI " + d.pci() + ")") + " is gone: its driver unbound or the card failed", ev,
                        FIRST + "look for a firmware fatal error or a PCIe error in `dmesg` (mlx5: 'health compromised', 'fatal "
                                + "error'). `lspci -s " + (d.pci() == null ? "<pci>" : d.pci()) + "` shows whether the card is still on the "
                                + "bus; reload the driver or reset the card (`mlxfwreset`), or replace it."));
                continue;
            }
            RdmaDevice now = present.get();
            for (Inventory.Port ip : d.ports()) {
                Optional<RdmaPort> port = now.ports().stream().filter(p -> p.port() == ip.port()).findFirst();
                Subject subject = Subject.port(now.name(), ip.port());
                if (port.isEmpty()) {
                    Evidence.Builder ev = Evidence.builder();
                    ev.put("expected_since", inv.acceptedAt());
                    ev.numbers("ports_now", now.ports().stream().map(RdmaPort::port).toList());
                    out.add(new Finding(id(), Severity.CRITICAL, subject, "port " + ip.port() + " of " + now.name() + " is gone", ev,
                            FIRST + "check `ibstat " + now.name() + "` and `dmesg`. A port that vanishes from a device is a driver or "
                                    + "firmware fault: reload the driver."));
                    continue;
                }
                if (ip.netdev() != null && port.get().netdev() == null && m.netdev(ip.netdev()).isEmpty()) {
                    Evidence.Builder ev = Evidence.builder();
                    ev.put("expected_since", inv.acceptedAt());
                    out.add(new Finding(id(), Severity.WARNING, subject.withNetdev(ip.netdev()), "netdev " + ip.netdev() + " of " + now.name() + " port "
                            + ip.port() + " is gone", ev,
                            "If the netdev was renamed on purpose, run `fabricd inventory accept` on the node; otherwise check `ip link` "
                                    + "and `rdma link show " + now.name() + "/" + ip.port() + "`. The netdev was renamed, deleted or its driver "
                                    + "unbound; RoCE and IPoIB need it."));
                }
            }
        }
        for (Inventory.Pci f : inv.pci()) {
            if (reportedPci.contains(f.address())) {
                continue;
            }
            Optional<PciFunction> now = m.pciFunction(f.address());
            boolean allOnes = m.readsAllOnes(f.address());
            if (now.isPresent() && !allOnes) {
                continue;
            }
            Subject subject = Subject.pci(f.address()).withGpu("gpu".equals(f.kind()) ? f.address() : null);
            Evidence.Builder ev = Evidence.builder();
            ev.put("kind", f.kind());
            ev.put("expected_since", inv.acceptedAt());
            ev.put("state", allOnes ? "reads all ones (link status or config space)" : "gone from the bus");
            String what = "gpu".equals(f.kind()) ? "GPU" : "nvswitch".equals(f.kind()) ? "NVSwitch" : "NIC function";
            out.add(new Finding(id(), Severity.CRITICAL, subject, what + " " + f.address()
                    + (allOnes ? " no longer answers on PCIe (it reads all ones)" : " fell off the PCIe bus"), ev,
                    FIRST + "look for 'fallen off the bus', AER or Xid errors in `dmesg`. `lspci -s " + f.address() + "` and (GPU) "
                            + "`nvidia-smi` confirm; a reset or a power cycle usually brings the function back, a repeat means a failing "
                            + "card, riser or slot."));
        }
        if (config.booting(m)) {
            // drivers probe and devices appear while a host boots: not yet a page
            out.replaceAll(f -> f.severity() != Severity.CRITICAL ? f : new Finding(f.check(), Severity.INFO, f.subject(),
                    f.summary() + " (the host booted less than " + config.bootGrace().toMinutes() + " min ago: critical if it stays gone)",
                    f.evidence(), f.remediation()));
        }
        return out;
    }

}
