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
 * host shows the link should be up ({@link PortExpectation}: configuration, inventory, a same-type
 * card's port). A port with a link partner ({@link LinkPartner}: trained or training, a RoCE netdev
 * with carrier) that is not ACTIVE is cabled and passes no traffic: a warning even when nothing
 * expects it up, never an unused port. Only a port without a partner (Polling, Disabled, no
 * carrier) that nothing expects is info, an unused or uncabled port. Warnings too: a RoCE port
 * Disabled whose netdev state is not known (mlx5 and bnxt_re say Disabled for an administratively
 * down netdev as for a failed link), and a port ACTIVE whose physical state is not LinkUp (the
 * driver's two states disagree). Not a finding: a port whose state is unreadable, an InfiniBand
 * port an administrator disabled, a RoCE port whose netdev is administratively down (operstate down,
 * carrier unreadable). The summary names the states by what their ids mean (IBA 14.2.5.6), with the
 * driver's text in the evidence.
 */
public final class LinkDown extends Check.Declared {

    public LinkDown() {
        super("link_down");
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
            NetdevInfo nd = Ports.netdev(m, p);
            Integer phys = p.physState() == null ? null : p.physState().id();
            if (ib && phys != null && phys == 3) {
                continue; // administratively disabled
            }
            if (!ib && nd != null && "down".equals(nd.operstate()) && nd.carrier() == null) {
                continue; // netdev administratively down
            }
            // mlx5 and bnxt_re say Disabled for an administratively down netdev as for a failed link
            boolean undecided = !ib && (nd == null || nd.operstate() == null) && phys != null && phys == 3;
            // logically ACTIVE (traffic flows) with a physical state that says otherwise: the driver's
            // two states disagree, which is worth a look but proves no outage
            boolean contradictory = p.state().id() == 4;
            LinkPartner partner = LinkPartner.of(p, nd);
            PortExpectation expect = PortExpectation.of(m, p, inventory, config);
            Severity severity;
            if (contradictory) {
                severity = Severity.WARNING;
            } else if (expect.expected()) {
                severity = undecided ? Severity.WARNING : Severity.CRITICAL;
            } else {
                // a cabled port that passes no traffic is a fault whatever expects it; only a port
                // without a partner can be an unused one
                severity = partner == LinkPartner.PRESENT ? Severity.WARNING : Severity.INFO;
            }
            Severity settled = severity;
            // links train and subnet managers configure ports while a host boots: no ticket, no page
            boolean booting = !contradictory && (severity == Severity.CRITICAL || severity == Severity.WARNING && partner == LinkPartner.PRESENT)
                    && config.booting(m);
            if (booting) {
                severity = Severity.INFO;
            }
            Subject subject = Ports.subject(p);
            Evidence.Builder evidence = Evidence.builder();
            evidence.put("state", p.state().toString());
            evidence.put("phys_state", p.physState() == null ? "not read" : p.physState().toString());
            if (nd != null) {
                evidence.put("netdev_operstate", nd.operstate());
                evidence.put("netdev_carrier", nd.carrier());
            }
            evidence.put("link_partner", partner.describe(p, nd));
            evidence.put("expected_up", expect.expected());
            evidence.put("expected_because", expect.reason());
            String where = p.device() + " port " + p.port();
            String physText = p.physState() == null ? "not read" : p.physState().physMeaning();
            String netdev = p.netdev() == null ? "<netdev>" : p.netdev();
            String summary;
            String fix;
            if (contradictory) {
                summary = where + " is ACTIVE but its physical state is " + physText
                        + " (sysfs '" + p.physState() + "'): the driver's states disagree";
                fix = "Check the port with `ibstat " + p.device() + " " + p.port() + "` and `ibv_devinfo -v`; a port that passes "
                        + "traffic is up, and a physical state that says otherwise is a driver or firmware reporting fault.";
            } else if (partner == LinkPartner.PRESENT && ib && p.state().id() == 2 && phys != null && phys == 5) {
                summary = "link trained but no subnet manager has configured " + where;
                fix = "Check that a subnet manager (opensm or the switch's SM) runs and reaches this port: `sminfo`, "
                        + "`ibstat " + p.device() + " " + p.port() + "`.";
            } else if (partner == LinkPartner.PRESENT) {
                summary = where + " is " + p.state().stateMeaning() + " although a link partner answers (" + LinkPartner.basis(p, nd)
                        + "): cabled, but it passes no traffic" + (expect.expected() ? "; " + expect.reason() : "");
                fix = (phys != null && (phys == 4 || phys == 6)
                        ? "The link does not finish training: check that cable, transceiver and switch port agree on speed and FEC "
                                + "(`mlxlink`, the switch port's settings), reseat or replace the cable. "
                        : "")
                        + (ib ? "Check the port and the subnet manager's view of it: `ibstat " + p.device() + " " + p.port() + "`, `sminfo`, "
                                + "the SM's log for this port."
                        : "Check `ip link show " + netdev + "` and `rdma link show " + p.device() + "/" + p.port() + "`; a RoCE port "
                                + "whose netdev has carrier should be ACTIVE: the driver's log (`dmesg`) says why it is not.");
            } else if (!expect.expected() && partner == LinkPartner.ABSENT) {
                summary = where + " is " + p.state().stateMeaning() + " (physical state " + physText
                        + ") and nothing expects it up: an unused or uncabled port";
                fix = "Nothing to do if the port is unused. If it should carry traffic, cable it and check the switch port "
                        + "(`ibstat " + p.device() + " " + p.port() + "`" + (p.netdev() == null ? "" : ", `ethtool " + p.netdev() + "`")
                        + "); once it is up, fabricd expects it up from then on (`fabricd inventory show`).";
            } else if (!expect.expected()) {
                summary = where + " is " + p.state().stateMeaning() + " (physical state " + physText
                        + ") and nothing expects it up; its physical state does not say whether it is cabled";
                fix = "Nothing to do if the port is unused. `ibstat " + p.device() + " " + p.port() + "` shows its states; "
                        + "once it is up, fabricd expects it up from then on (`fabricd inventory show`).";
            } else if (phys != null && phys == 2) {
                summary = where + " has no link partner (Polling); " + expect.reason();
                fix = "Check the cable and transceiver and the switch port: `ibstat`/`ethtool " + netdev
                        + "`, reseat or replace the cable. If the port was taken out of service on purpose, run `fabricd inventory accept`.";
            } else {
                summary = where + " is " + p.state().stateMeaning() + ", physical state " + physText
                        + (undecided ? " (its netdev's state is not known: administratively down or a failed link)" : "; " + expect.reason());
                fix = "Bring the link up: check cable, transceiver and switch port; for RoCE `ip link set " + netdev + " up` and check carrier"
                        + (undecided ? " (`ip link show` tells whether it was taken down on purpose)." : ".")
                        + " If the port was taken out of service on purpose, run `fabricd inventory accept`.";
            }
            if (booting) {
                summary += " (the host booted less than " + config.bootGrace().toMinutes() + " min ago: "
                        + (settled == Severity.CRITICAL ? "critical if it stays down" : "a warning if it stays so") + ")";
            }
            out.add(new Finding(id(), severity, subject, summary, evidence, fix));
        }
        return out;
    }
}
