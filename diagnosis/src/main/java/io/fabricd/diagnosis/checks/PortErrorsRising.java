package io.fabricd.diagnosis.checks;

import io.fabricd.model.DriverStats;
import io.fabricd.model.HostModel;
import io.fabricd.model.NetdevInfo;
import io.fabricd.model.RdmaPort;
import io.fabricd.diagnosis.Check;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.model.finding.Evidence;
import io.fabricd.model.finding.Finding;
import io.fabricd.diagnosis.Rate;
import io.fabricd.model.finding.Severity;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * {@code port_errors_rising}: a port's link errors increasing.
 * <ul>
 * <li>With the previous collection (warning): PMA error counters faster than their threshold
 *     ({@link DiagnosisConfig#DEFAULT_PORT_ERRORS}: symbol errors above 120/h, link_error_recovery
 *     5/min, port_rcv_errors 10/s, any link_downed, local_link_integrity_errors or
 *     excessive_buffer_overrun_errors), and on a RoCE port its netdev's physical layer
 *     ({@link DiagnosisConfig#DEFAULT_PHY_ERRORS}: CRC, symbol, PCS symbol errors above 120/h, any
 *     link down event), one finding per port listing every counter over its threshold. A PMA counter
 *     saturated in either collection is not judged (counter_saturated reports it), nor one that went
 *     down (reset).</li>
 * <li>One physical lane far worse than its siblings (a bad lane of a cable or optic): at least
 *     {@code lane_errors.min_errors} errors and {@code lane_errors.ratio} times the worst other lane,
 *     judged on the increase with the previous collection (warning), on the totals since the driver
 *     loaded without it (info).</li>
 * </ul>
 */
public final class PortErrorsRising extends Check.Declared {

    public PortErrorsRising() {
        super("port_errors_rising", History.PARTIAL);
    }

    @Override
    public List<Finding> evaluate(Inputs in, DiagnosisConfig config) {
        HostModel m = in.current();
        HostModel previous = in.previous();
        List<Finding> out = new ArrayList<>();
        double seconds = Ports.elapsed(m, previous);
        for (RdmaPort p : m.ports()) {
            NetdevInfo nd = Ports.ethernet(p) ? Ports.netdev(m, p) : null;
            RdmaPort before = seconds > 0 ? Ports.in(previous, p).orElse(null) : null;
            NetdevInfo ndBefore = seconds > 0 && nd != null ? previous.netdev(nd.name()).orElse(null) : null;
            if (before != null) {
                rising(p, before, nd, ndBefore, seconds, config, out);
            } else {
                totals(p, nd, config, out);
            }
            if (nd != null) {
                lanes(p, nd, ndBefore, seconds, config, out);
            }
        }
        return out;
    }

    private void rising(RdmaPort p, RdmaPort before, NetdevInfo nd, NetdevInfo ndBefore, double seconds, DiagnosisConfig config,
                        List<Finding> out) {
        List<Evidence> rising = new ArrayList<>();
        for (var t : config.portErrorThresholds().entrySet()) {
            String c = t.getKey();
            boolean hw = !p.counters().containsKey(c);
            Long now = hw ? p.hwCounters().get(c) : p.counters().get(c);
            Long then = hw ? before.hwCounters().get(c) : before.counters().get(c);
            if (p.isSaturated(c) || before.isSaturated(c)) {
                continue;
            }
            add(rising, c, Ports.delta(then, now), t.getValue(), seconds);
        }
        if (nd != null && ndBefore != null) {
            SortedMap<String, Long> phyNow = DriverStats.phyErrors(nd.stats());
            SortedMap<String, Long> phyThen = DriverStats.phyErrors(ndBefore.stats());
            for (var t : config.phyErrorThresholds().entrySet()) {
                String type = t.getKey();
                Long delta = type.equals("link_down")
                        ? Ports.delta(DriverStats.linkDownEvents(ndBefore.stats()), DriverStats.linkDownEvents(nd.stats()))
                        : Ports.delta(phyThen.get(type), phyNow.get(type));
                add(rising, nd.name() + " " + (type.equals("link_down") ? "link down events" : type + " errors"), delta, t.getValue(), seconds);
            }
        }
        if (rising.isEmpty()) {
            return;
        }
        Evidence.Builder ev = Evidence.builder();
        ev.put("interval_seconds", Math.round(seconds * 1000) / 1000.0);
        ev.objects("rising", rising);
        String names = String.join(", ", rising.stream().map(e -> e.get("counter") + " +" + e.get("increase")).toList());
        out.add(new Finding(id(), Severity.WARNING, Ports.subject(p),
                "link errors rising on " + p.device() + " port " + p.port() + ": " + names + " in " + Math.round(seconds) + " s", ev,
                "A bit error rate above the IBTA 1e-12 limit or link retrains point at the cable, transceiver or switch port: "
                        + "`mlxlink -d <pci> -c -e` (BER, FEC), `ibqueryerrors`, `ethtool -S <netdev> | grep -E 'phy|lane'`, reseat or "
                        + "replace the cable; watch whether it follows the cable or stays with the port."));
    }

    /**
     * Without a previous collection: the error counters' totals since the driver loaded (or the
     * counters were cleared), as info with their values: no rate can be judged, but a total is not
     * nothing either. Counters pinned at their maximum are counter_saturated's.
     */
    private void totals(RdmaPort p, NetdevInfo nd, DiagnosisConfig config, List<Finding> out) {
        List<Evidence> totals = new ArrayList<>();
        for (String c : config.portErrorThresholds().keySet()) {
            Long v = p.counters().containsKey(c) ? p.counters().get(c) : p.hwCounters().get(c);
            if (v != null && v != 0 && !p.isSaturated(c)) {
                totals.add(total(c, v));
            }
        }
        if (nd != null) {
            for (String type : config.phyErrorThresholds().keySet()) {
                Long v = type.equals("link_down") ? DriverStats.linkDownEvents(nd.stats()) : DriverStats.phyErrors(nd.stats()).get(type);
                if (v != null && v != 0) {
                    totals.add(total(nd.name() + " " + (type.equals("link_down") ? "link down events" : type + " errors"), v));
                }
            }
        }
        if (totals.isEmpty()) {
            return;
        }
        Evidence.Builder ev = Evidence.builder();
        ev.put("counts", "totals since the driver loaded or the counters were cleared (one collection: no rate)");
        ev.objects("totals", totals);
        String names = String.join(", ", totals.stream().map(e -> e.get("counter") + " " + e.get("total")).toList());
        out.add(new Finding(id(), Severity.INFO, Ports.subject(p), "link error totals on " + p.device() + " port " + p.port() + ": " + names,
                ev, "Totals alone say nothing about now: the running agent (or `fabricd diagnose --previous DIR`) judges their rate. "
                        + "Many link_downed or link down events since boot point at a link that flapped; `ibqueryerrors` and "
                        + "`mlxlink -d <pci> -c` show the link's history."));
    }

    private static Evidence total(String counter, long value) {
        Evidence.Builder e = Evidence.builder();
        e.put("counter", counter);
        e.put("total", Long.toUnsignedString(value));
        return e.build();
    }

    private static void add(List<Evidence> rising, String counter, Long delta, Rate threshold, double seconds) {
        if (delta == null || !threshold.exceeded(delta, seconds)) {
            return;
        }
        Evidence.Builder e = Evidence.builder();
        e.put("counter", counter);
        e.put("increase", delta);
        e.put("rate", Ports.rate(delta / seconds));
        e.put("threshold", threshold.perSecond() == 0 ? "any increase" : threshold.text());
        rising.add(e.build());
    }

    /** One lane with errors far above every other lane of the port. */
    private void lanes(RdmaPort p, NetdevInfo nd, NetdevInfo ndBefore, double seconds, DiagnosisConfig config, List<Finding> out) {
        SortedMap<Integer, Long> now = DriverStats.laneErrors(nd.stats());
        if (now.size() < 2) {
            return;
        }
        SortedMap<Integer, Long> errors = new TreeMap<>();
        if (ndBefore != null) {
            SortedMap<Integer, Long> then = DriverStats.laneErrors(ndBefore.stats());
            for (var e : now.entrySet()) {
                Long d = Ports.delta(then.get(e.getKey()), e.getValue());
                if (d == null) {
                    return; // a lane reset or appeared: no comparison this time
                }
                errors.put(e.getKey(), d);
            }
        } else {
            errors.putAll(now);
        }
        int worst = -1;
        long worstErrors = 0;
        long others = 0;
        for (var e : errors.entrySet()) {
            if (Long.compareUnsigned(e.getValue(), worstErrors) > 0) {
                others = Math.max(others, worstErrors);
                worst = e.getKey();
                worstErrors = e.getValue();
            } else {
                others = Math.max(others, e.getValue());
            }
        }
        if (worst < 0 || worstErrors < config.laneErrors().minErrors() || worstErrors < config.laneErrors().ratio() * others) {
            return;
        }
        boolean rates = ndBefore != null;
        Evidence.Builder ev = Evidence.builder();
        ev.put("lane", worst);
        ev.put("lane_errors", Evidence.numbers(errors));
        ev.put("counts", rates ? "increase over " + Math.round(seconds) + " s" : "totals since the driver loaded");
        ev.put("threshold", "at least " + config.laneErrors().minErrors() + " and " + config.laneErrors().ratio() + "x the worst other lane");
        Long corrected = DriverStats.correctedBits(nd.stats());
        if (corrected != null) {
            ev.put("corrected_bits_total", Long.toUnsignedString(corrected));
        }
        out.add(new Finding(id(), rates ? Severity.WARNING : Severity.INFO, Ports.subject(p),
                "lane " + worst + " of " + nd.name() + " has " + worstErrors + " receive errors against at most " + others
                        + " on each other lane" + (rates ? " in " + Math.round(seconds) + " s" : " since the driver loaded")
                        + ": a bad lane of the cable or optic", ev,
                "One lane failing while its siblings are clean points at the transceiver, the cable or the switch port's lane: "
                        + "`mlxlink -d <pci> -m -c` (per-lane eye and BER), then swap the cable or optic and see whether the errors "
                        + "follow it."));
    }
}
