package io.fabricd.diagnosis.checks;

import io.fabricd.model.HostModel;
import io.fabricd.model.NetdevInfo;
import io.fabricd.model.RdmaPort;
import io.fabricd.diagnosis.Check;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.model.finding.Evidence;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Subject;
import io.fabricd.model.finding.Severity;
import io.fabricd.diagnosis.inventory.Inventory;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code link_down}: an RDMA port that is not ACTIVE with physical state LinkUp. Critical when the
 * host shows the link should be up; not a finding: a port whose state is unreadable (unknown is
 * never critical), an InfiniBand port an administrator disabled (phys_state 3: Disabled), a RoCE
 * port whose netdev is administratively down (operstate down and carrier unreadable: the kernel
 * refuses carrier reads then). A RoCE port Disabled whose netdev state is not known is a warning:
 * mlx5 and bnxt_re say Disabled for an administratively down netdev as for a failed link, and
 * nothing tells them apart; so is a port whose logical state is ACTIVE while its physical state is
 * not LinkUp (the driver's two states disagree; ACTIVE means it passes traffic). A down port that
 * nothing expects up ({@link PortExpectation}: configuration, inventory, a same-type card's port) is
 * info: an uncabled or unused port is inventory, not an outage. The summary names the states by what their ids mean (IBA 14.2.5.6),
 * with the driver's text in the evidence. Devices excluded by config are never collected.
 */
public final class LinkDown implements Check {

    @Override
    public String id() {
        return "link_down";
    }

    @Override
    public List<Finding> evaluate(Inputs in, DiagnosisConfig config) {
        HostModel m = in.current();
        Inventory inventory = in.inventory();
        List<Finding> out = new ArrayList<>();
        for (RdmaPort p : m.ports()) {
            if (p.up() || p.state() == null) {
                continue;
            }
            boolean ib = "InfiniBand".equals(p.linkLayer());
            NetdevInfo nd = p.netdev() == null ? null : m.netdev(p.netdev()).orElse(null);
            Integer phys = p.physState() == null ? null : p.physState().id();
            if (ib && phys != null && phys == 3) {
                continue; // administratively disabled
            }
            if (!ib && nd != null && "down".equals(nd.operstate()) && nd.carrier() == null) {
                continue; // netdev administratively down
            }
            boolean netdevUnknown = nd == null || nd.operstate() == null;
            // logically ACTIVE (traffic flows) with a physical state that says otherwise: the driver's
            // two states disagree, which is worth a look but proves no outage
            boolean contradictory = p.state().id() == 4;
            PortExpectation expect = PortExpectation.of(m, p, inventory, config);
            Severity severity = contradictory || !ib && netdevUnknown && phys != null && phys == 3 ? Severity.WARNING : Severity.CRITICAL;
            if (!contradictory && !expect.expected()) {
                severity = Severity.INFO;
            }
            boolean booting = severity == Severity.CRITICAL && config.booting(m);
            if (booting) {
                severity = Severity.INFO; // links train and subnet managers configure ports while a host boots: no ticket, no page
            }
            Subject subject = Ports.subject(p);
            Evidence.Builder evidence = Evidence.builder();
            evidence.put("state", p.state().toString());
            evidence.put("phys_state", p.physState() == null ? "not read" : p.physState().toString());
            if (nd != null) {
                evidence.put("netdev_operstate", nd.operstate());
                evidence.put("netdev_carrier", nd.carrier());
            }
            evidence.put("expected_up", expect.expected());
            evidence.put("expected_because", expect.reason());
            String physText = p.physState() == null ? "not read" : p.physState().physMeaning();
            String summary;
            String fix;
            if (severity == Severity.INFO) {
                summary = p.device() + " port " + p.port() + " is " + p.state().stateMeaning() + " (physical state " + physText
                        + ") and nothing expects it up: an unused or uncabled port";
                fix = "Nothing to do if the port is unused. If it should carry traffic, cable it and check the switch port "
                        + "(`ibstat " + p.device() + " " + p.port() + "`" + (p.netdev() == null ? "" : ", `ethtool " + p.netdev() + "`")
                        + "); once it is up, fabricd expects it up from then on (`fabricd inventory show`).";
            } else if (ib && p.state().id() == 2 && phys != null && phys == 5) {
                summary = "link trained but no subnet manager has configured " + p.device() + " port " + p.port();
                fix = "Check that a subnet manager (opensm or the switch's SM) runs and reaches this port: `sminfo`, "
                        + "`ibstat " + p.device() + " " + p.port() + "`.";
            } else if (phys != null && phys == 2) {
                summary = p.device() + " port " + p.port() + " has no link partner (Polling); " + expect.reason();
                fix = "Check the cable and transceiver and the switch port: `ibstat`/`ethtool " + (p.netdev() == null ? "<netdev>" : p.netdev())
                        + "`, reseat or replace the cable. If the port was taken out of service on purpose, run `fabricd inventory accept`.";
            } else if (contradictory) {
                summary = p.device() + " port " + p.port() + " is ACTIVE but its physical state is " + physText
                        + " (sysfs '" + p.physState() + "'): the driver's states disagree";
                fix = "Check the port with `ibstat " + p.device() + " " + p.port() + "` and `ibv_devinfo -v`; a port that passes "
                        + "traffic is up, and a physical state that says otherwise is a driver or firmware reporting fault.";
            } else {
                summary = p.device() + " port " + p.port() + " is " + p.state().stateMeaning() + ", physical state " + physText
                        + (severity == Severity.WARNING ? " (its netdev's state is not known: administratively down or a failed link)"
                        : "; " + expect.reason());
                fix = "Bring the link up: check cable, transceiver and switch port; for RoCE `ip link set "
                        + (p.netdev() == null ? "<netdev>" : p.netdev()) + " up` and check carrier"
                        + (severity == Severity.WARNING ? " (`ip link show` tells whether it was taken down on purpose)." : ".")
                        + " If the port was taken out of service on purpose, run `fabricd inventory accept`.";
            }
            if (booting) {
                summary += " (the host booted less than " + config.bootGrace().toMinutes() + " min ago: critical if it stays down)";
            }
            out.add(new Finding(id(), severity, subject, summary, evidence, fix));
        }
        return out;
    }
}
