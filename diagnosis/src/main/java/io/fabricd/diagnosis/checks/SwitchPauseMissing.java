package io.fabricd.diagnosis.checks;

import io.fabricd.diagnosis.Check;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.model.DriverStats;
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
 * {@code switch_pause_missing} (warning): on a priority with PFC on at the host, between two collections
 * the port dropped received packets for want of buffer ({@link DriverStats#priorityBufferDiscards}, mlx5
 * {@code rx_prioN_buf_discard}) while it sent PFC pause frames on that priority, and the switch sent it
 * none there. The host asked the switch to stop and the switch kept sending: its port does not run (or
 * honour) PFC on that priority. The other reading of the same counters, too little PFC headroom at the
 * host, is named in the remediation. Drops without a pause sent are the host's own PFC not reacting,
 * not this finding; a port-wide drop counter ({@code rx_discards_phy}) is not taken, since it mixes the
 * lossy priorities in. Without a per-priority drop counter or PFC frame counts the priority is not
 * judged (blind).
 */
public final class SwitchPauseMissing extends Check.Declared {

    public SwitchPauseMissing() {
        super("switch_pause_missing", History.REQUIRED);
    }

    @Override
    public List<Finding> evaluate(Inputs in, DiagnosisConfig config) {
        List<Finding> out = new ArrayList<>();
        HostModel m = in.current();
        double seconds = Ports.elapsed(m, in.previous());
        for (RdmaPort p : m.ports()) {
            NetdevInfo nd = Ports.netdev(m, p);
            NetdevInfo before = nd == null || seconds <= 0 || !Ports.roce(m, p) ? null : in.previous().netdev(nd.name()).orElse(null);
            if (before == null) {
                continue;
            }
            for (int prio : lossless(nd, before)) {
                Long drops = Ports.delta(DriverStats.priorityBufferDiscards(before.stats(), prio),
                        DriverStats.priorityBufferDiscards(nd.stats(), prio));
                Long tx = PfcFrames.delta(before, nd, Dir.TX, prio);
                Long rx = PfcFrames.delta(before, nd, Dir.RX, prio);
                if (drops == null || tx == null || rx == null || drops == 0 || tx == 0 || rx != 0) {
                    continue;
                }
                Evidence.Builder ev = Evidence.builder();
                ev.put("interval_seconds", Math.round(seconds * 1000) / 1000.0);
                ev.put("rx_buffer_discards", drops);
                ev.put("tx_pfc_frames", tx);
                ev.put("rx_pfc_frames", rx);
                Neighbors.evidence(ev, m, nd.name());
                String sw = Neighbors.name(m, nd.name());
                out.add(new Finding(id(), Severity.WARNING, Ports.subject(p, prio),
                        nd.name() + " dropped " + drops + " packets of lossless priority " + prio + " after sending " + tx
                                + " PFC pause frames, and " + sw + " never paused it there: the switch port looks to run no PFC on priority " + prio,
                        ev,
                        "Enable PFC on priority " + prio + " on " + sw + " to match the host; confirm with "
                                + Neighbors.pfcCommands(Neighbors.port(m, nd.name())) + ". If the switch does run PFC there, the host's "
                                + "PFC headroom is too small for the cable: check `mlnx_qos -i " + nd.name() + "` (buffer sizes, cable length)."));
            }
        }
        return out;
    }

    /** Priorities with PFC on at the host in both collections. */
    private static List<Integer> lossless(NetdevInfo nd, NetdevInfo before) {
        List<Integer> was = before.pfc().map(NetdevInfo.Pfc::enabled).orElse(List.of());
        return nd.pfc().map(NetdevInfo.Pfc::enabled).orElse(List.of()).stream().filter(was::contains).toList();
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
            NetdevInfo before = nd == null || !Ports.roce(m, p) ? null : in.previous().netdev(nd.name()).orElse(null);
            if (before == null) {
                continue;
            }
            for (int prio : lossless(nd, before)) {
                List<String> missing = new ArrayList<>();
                if (DriverStats.priorityBufferDiscards(nd.stats(), prio) == null) {
                    missing.add("per-priority receive buffer drops");
                }
                if (PfcFrames.of(nd, Dir.TX, prio) == null || PfcFrames.of(nd, Dir.RX, prio) == null) {
                    missing.add("PFC frames sent and received");
                }
                if (!missing.isEmpty()) {
                    out.add(new NotJudged(id(), Ports.subject(p, prio), NotJudged.Reason.BLIND,
                            nd.name() + " does not count " + String.join(" or ", missing) + " on priority " + prio));
                }
            }
        }
        return out;
    }
}
