package io.fabricd.diagnosis.checks;

import io.fabricd.diagnosis.Check;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.model.DriverStats.Dir;
import io.fabricd.model.HostModel;
import io.fabricd.model.NetdevInfo;
import io.fabricd.model.RdmaPort;
import io.fabricd.model.finding.Evidence;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.NotJudged;
import io.fabricd.model.finding.Severity;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code switch_pause_unexpected} (warning): between two collections the port received PFC pause frames on
 * a priority the host has no PFC on: the switch port runs PFC on priorities the host does not, so the
 * two disagree on which traffic is lossless. Received frames per priority come from the driver's
 * statistics or DCB's PFC indications ({@link PfcFrames}; mlx5 counts all eight priorities there).
 * Needs the host's PFC state ({@link NetdevInfo#pfc()}) and the previous collection; a priority without
 * PFC whose received frames nothing counts is not judged (blind), never a claim.
 */
public final class SwitchPauseUnexpected extends Check.Declared {

    public SwitchPauseUnexpected() {
        super("switch_pause_unexpected", History.REQUIRED);
    }

    @Override
    public List<Finding> evaluate(Inputs in, DiagnosisConfig config) {
        List<Finding> out = new ArrayList<>();
        HostModel m = in.current();
        double seconds = Ports.elapsed(m, in.previous());
        for (RdmaPort p : m.ports()) {
            NetdevInfo nd = Ports.netdev(m, p);
            NetdevInfo before = nd == null || seconds <= 0 ? null : in.previous().netdev(nd.name()).orElse(null);
            NetdevInfo.Pfc pfc = before == null || !Ports.roce(m, p) ? null : nd.pfc().orElse(null);
            if (pfc == null) {
                continue; // no history, or the host's PFC state unknown: nothing to compare the switch with
            }
            List<Integer> wasOn = before.pfc().map(NetdevInfo.Pfc::enabled).orElse(List.of());
            for (int prio = 0; prio < 8; prio++) {
                Long rx = PfcFrames.delta(before, nd, Dir.RX, prio);
                // PFC off on the priority in both collections: frames counted while it was on are no claim
                if (pfc.enabled().contains(prio) || wasOn.contains(prio) || rx == null || rx == 0) {
                    continue;
                }
                Evidence.Builder ev = Evidence.builder();
                ev.put("interval_seconds", Math.round(seconds * 1000) / 1000.0);
                ev.put("rx_pfc_frames", rx);
                ev.numbers("host_pfc_enabled", pfc.enabled());
                ev.put("pfc_source", pfc.source());
                Neighbors.evidence(ev, m, nd.name());
                String sw = Neighbors.name(m, nd.name());
                out.add(new Finding(id(), Severity.WARNING, Ports.subject(p, prio),
                        sw + " sent " + rx + " PFC pause frames on priority " + prio + " to " + nd.name()
                                + ", where the host has no PFC (host PFC on " + pfc.enabled() + ")", ev,
                        "The switch port and the host disagree on which priorities are lossless. Make them match: either PFC on "
                                + "priority " + prio + " on the host (`dcb pfc set dev " + nd.name() + " prio-pfc " + prio + ":on`) or "
                                + "off on the switch port, as the fabric's design says. Confirm on " + sw + ": "
                                + Neighbors.pfcCommands(Neighbors.port(m, nd.name())) + "."));
            }
        }
        return out;
    }

    @Override
    public List<NotJudged> notJudged(Inputs in, DiagnosisConfig config) {
        List<NotJudged> out = new ArrayList<>();
        HostModel m = in.current();
        if (Ports.elapsed(m, in.previous()) <= 0) {
            return out;
        }
        for (RdmaPort p : m.ports()) {
            NetdevInfo nd = Ports.netdev(m, p);
            NetdevInfo.Pfc pfc = nd == null || !Ports.roce(m, p) ? null : nd.pfc().orElse(null);
            if (pfc == null || in.previous().netdev(nd.name()).isEmpty()) {
                continue;
            }
            List<Integer> blind = new ArrayList<>();
            for (int prio = 0; prio < 8; prio++) {
                if (!pfc.enabled().contains(prio) && PfcFrames.of(nd, Dir.RX, prio) == null) {
                    blind.add(prio);
                }
            }
            if (!blind.isEmpty()) {
                out.add(new NotJudged(id(), Ports.subject(p), NotJudged.Reason.BLIND, nd.name() + " counts no received PFC frames on "
                        + "priorities " + blind + " (no driver statistic, no DCB indications): pauses the switch sends there cannot be seen"));
            }
        }
        return out;
    }
}
