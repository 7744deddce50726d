package io.fabricd.diagnosis.checks;

import io.fabricd.model.DriverStats;
import io.fabricd.model.DriverStats.Dir;
import io.fabricd.model.HostModel;
import io.fabricd.model.NetdevInfo;
import io.fabricd.model.RdmaPort;
import io.fabricd.diagnosis.Check;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.model.finding.Evidence;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Severity;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code pause_storm}: a port caught in a PFC pause storm.
 * <ul>
 * <li>The NIC's storm watchdog ({@code tx_pause_storm_warning_events}, {@code _error_events}): with
 *     the previous collection, any increase is critical (the NIC stopped sending pauses after its
 *     stall timeout: it was pausing the fabric); one-shot, a non-zero total is a warning (the
 *     watchdog fired since the driver loaded).</li>
 * <li>With the previous collection: PFC pause frames sent on a priority above
 *     {@code diagnosis.pause_storm.tx_pause_frames_per_second} (2000/s) is critical: the storm-origin
 *     signature that spreads to the whole fabric (Guo et al., SIGCOMM 2016 §6.2); the port held paused
 *     by its peer for more than {@code rx_pause_time_fraction} (0.5) of the interval is a warning
 *     (head-of-line victim, or congestion upstream).</li>
 * </ul>
 * The same two thresholds apply to 802.3x global pause (which pauses every priority at once): a port
 * sending global pause frames above the frame rate is critical, one held paused by its peer's global
 * pause above the time share is a warning; the finding has no priority.
 * Per-priority frames and time come from the driver's statistics ({@link DriverStats}: mlx5
 * {@code rx/tx_prioN_pause(_duration)} in microseconds, bnxt_en, ice), frames also from DCB's PFC
 * requests/indications when the driver statistics lack them.
 */
public final class PauseStorm extends Check.Declared {

    public PauseStorm() {
        super("pause_storm", History.PARTIAL);
    }

    @Override
    public List<Finding> evaluate(Inputs in, DiagnosisConfig config) {
        HostModel m = in.current();
        HostModel previous = in.previous();
        List<Finding> out = new ArrayList<>();
        double seconds = Ports.elapsed(m, previous);
        for (RdmaPort p : m.ports()) {
            NetdevInfo nd = Ports.netdev(m, p);
            if (!Ports.ethernet(p) || nd == null) {
                continue;
            }
            NetdevInfo before = seconds > 0 ? previous.netdev(nd.name()).orElse(null) : null;
            watchdog(p, nd, before, seconds, out);
            if (before == null) {
                continue;
            }
            global(p, nd, before, seconds, config, out);
            for (int prio = 0; prio < 8; prio++) {
                Long tx = PfcFrames.delta(before, nd, Dir.TX, prio);
                Long rxUs = Ports.delta(DriverStats.pfcPauseMicros(before.stats(), Dir.RX, prio),
                        DriverStats.pfcPauseMicros(nd.stats(), Dir.RX, prio));
                boolean txStorm = tx != null && tx / seconds > config.pauseStorm().txPauseFramesPerSecond();
                if (!txStorm && (rxUs == null || rxUs / 1e6 / seconds <= config.pauseStorm().rxPauseTimeFraction())) {
                    continue; // the usual case: no map, no finding
                }
                Evidence.Builder ev = Evidence.builder();
                ev.put("interval_seconds", Math.round(seconds * 1000) / 1000.0);
                if (txStorm) {
                    ev.put("tx_pause_frames", tx);
                    ev.put("tx_pause_frames_per_second", Math.round(tx / seconds));
                    ev.put("threshold_per_second", config.pauseStorm().txPauseFramesPerSecond());
                    Long txBytes = Ports.delta(before.stats().get("tx_prio" + prio + "_bytes"), nd.stats().get("tx_prio" + prio + "_bytes"));
                    if (txBytes != null) {
                        ev.put("tx_bytes", txBytes);
                    }
                    out.add(new Finding(id(), Severity.CRITICAL, Ports.subject(p, prio),
                            nd.name() + " is sending " + Math.round(tx / seconds) + " PFC pause frames/s on priority " + prio, ev,
                            "A host that pauses the fabric this hard is usually stuck (receive pipeline stalled, host memory or PCIe "
                                    + "starved): check the NIC (`ethtool -S " + nd.name() + " | grep -E 'pause|discard|out_of_buffer'`, dmesg), "
                                    + "drain or isolate the host, and keep the PFC storm watchdogs on (NIC: pfc_stall_prevention; switch: PFC watchdog)."));
                } else {
                    double frac = rxUs / 1e6 / seconds;
                    ev.put("rx_paused_seconds", rxUs / 1e6);
                    ev.put("rx_paused_fraction", Math.round(frac * 1000) / 1000.0);
                    ev.put("threshold_fraction", config.pauseStorm().rxPauseTimeFraction());
                    out.add(new Finding(id(), Severity.WARNING, Ports.subject(p, prio),
                            nd.name() + " was held paused " + Math.round(frac * 100) + " % of the time on priority " + prio, ev,
                            "The switch keeps pausing this port: find the congested or storming receiver downstream (pause counters on "
                                    + "the switch, `fabric_pfc_pause_frames_total` of other hosts); check switch buffer/PFC headroom settings."));
                }
            }
        }
        return out;
    }

    private void watchdog(RdmaPort p, NetdevInfo nd, NetdevInfo before, double seconds, List<Finding> out) {
        Long warn = nd.stats().get("tx_pause_storm_warning_events");
        Long err = nd.stats().get("tx_pause_storm_error_events");
        if (warn == null && err == null) {
            return;
        }
        Evidence.Builder ev = Evidence.builder();
        if (before != null) {
            Long dw = Ports.delta(before.stats().get("tx_pause_storm_warning_events"), warn);
            Long de = Ports.delta(before.stats().get("tx_pause_storm_error_events"), err);
            long d = (dw == null ? 0 : dw) + (de == null ? 0 : de);
            if (d <= 0) {
                return;
            }
            ev.put("storm_warning_events_increase", dw);
            ev.put("storm_error_events_increase", de);
            ev.put("interval_seconds", Math.round(seconds * 1000) / 1000.0);
            out.add(new Finding(id(), Severity.CRITICAL, Ports.subject(p),
                    "the PFC storm watchdog of " + nd.name() + " fired " + d + " times in the last " + Math.round(seconds) + " s", ev, fix(nd)));
            return;
        }
        long total = (warn == null ? 0 : warn) + (err == null ? 0 : err);
        if (total <= 0) {
            return;
        }
        ev.put("tx_pause_storm_warning_events", warn);
        ev.put("tx_pause_storm_error_events", err);
        ev.put("counts", "totals since the driver loaded");
        out.add(new Finding(id(), Severity.WARNING, Ports.subject(p),
                "the PFC storm watchdog of " + nd.name() + " has fired " + total + " times since the driver loaded", ev, fix(nd)));
    }

    private static String fix(NetdevInfo nd) {
        return "The NIC was sending pause frames while its receive path was stalled and stopped itself: check dmesg and the host "
                + "(stuck driver, PCIe errors, memory pressure); `ethtool -S " + nd.name() + " | grep pause_storm`. The events clear only with "
                + "a driver reload; the running agent judges their increase.";
    }

    /** 802.3x global pause at a storm rate: sent above the frame rate (critical), or held paused above the time share (warning). */
    private void global(RdmaPort p, NetdevInfo nd, NetdevInfo before, double seconds, DiagnosisConfig config, List<Finding> out) {
        Long tx = Ports.delta(DriverStats.globalPauseFrames(before.stats(), Dir.TX), DriverStats.globalPauseFrames(nd.stats(), Dir.TX));
        Long rxUs = Ports.delta(DriverStats.globalPauseMicros(before.stats(), Dir.RX), DriverStats.globalPauseMicros(nd.stats(), Dir.RX));
        Evidence.Builder ev = Evidence.builder();
        ev.put("interval_seconds", Math.round(seconds * 1000) / 1000.0);
        if (tx != null && tx / seconds > config.pauseStorm().txPauseFramesPerSecond()) {
            ev.put("tx_global_pause_frames", tx);
            ev.put("tx_global_pause_frames_per_second", Math.round(tx / seconds));
            ev.put("threshold_per_second", config.pauseStorm().txPauseFramesPerSecond());
            out.add(new Finding(id(), Severity.CRITICAL, Ports.subject(p),
                    nd.name() + " is sending " + Math.round(tx / seconds) + " 802.3x global pause frames/s (every priority paused)", ev,
                    "A host that pauses its link this hard is usually stuck (receive path stalled, host memory or PCIe starved): check "
                            + "dmesg and `ethtool -S " + nd.name() + " | grep -E 'pause|discard'`, drain or isolate the host. On a RoCE fabric "
                            + "use PFC on the RDMA priority instead of global pause: `ethtool -A " + nd.name() + " rx off tx off`."));
        } else if (rxUs != null && rxUs / 1e6 / seconds > config.pauseStorm().rxPauseTimeFraction()) {
            double frac = rxUs / 1e6 / seconds;
            ev.put("rx_global_paused_seconds", rxUs / 1e6);
            ev.put("rx_global_paused_fraction", Math.round(frac * 1000) / 1000.0);
            ev.put("threshold_fraction", config.pauseStorm().rxPauseTimeFraction());
            out.add(new Finding(id(), Severity.WARNING, Ports.subject(p),
                    nd.name() + " was held paused by 802.3x global pause " + Math.round(frac * 100) + " % of the time", ev,
                    "The link partner keeps pausing this port on every priority: find the congested or stuck receiver behind the switch "
                            + "port, and on a RoCE fabric use PFC on the RDMA priority instead of global pause."));
        }
    }
}
