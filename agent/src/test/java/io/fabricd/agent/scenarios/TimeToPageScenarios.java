package io.fabricd.agent.scenarios;

import static io.fabricd.agent.scenarios.AlertScenariosTest.BIG;
import static io.fabricd.agent.scenarios.AlertScenariosTest.IB;
import static io.fabricd.agent.scenarios.AlertScenariosTest.NIC0;

import io.fabricd.model.finding.Severity;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

/**
 * The scenarios of docs/alerts.md's time to page: incidents whose onset falls anywhere among the
 * collections and scrapes (on one, just after one, just before the next; collected and scraped once
 * a minute, scraped late, or at the chart's 10 s and 30 s), the slowest rate each rate rule is
 * meant to catch, and the normal events a short window must still let pass (a single link flap, a
 * burst of pauses as a job starts, the failed QPs of a killed job).
 */
final class TimeToPageScenarios {
    private static final String SYMBOL_ERRORS = NIC0 + "/ports/1/counters/symbol_error";

    private TimeToPageScenarios() {
    }

    /** Where an onset falls: seconds after a collection, for each clock. */
    private record Phase(Clock clock, int offset) {
        int onset() {
            return 600 + offset;
        }

        String name() {
            return clock + ", onset " + offset + " s after a collection";
        }
    }

    private static final List<Phase> PHASES = List.of(new Phase(Clock.MINUTE, 10), new Phase(Clock.MINUTE, 50),
            new Phase(Clock.SCRAPED_LATE, 10), new Phase(Clock.SCRAPED_LATE, 50), new Phase(Clock.CHART, 5));

    static List<Scenario> all() {
        List<Scenario> s = new ArrayList<>();
        // ---- the two incidents the budget names, at every phase ----
        for (Phase p : PHASES) {
            Scenario cable = Scenario.incident("bad cable: symbol errors at 10/min (" + p.name() + ")", IB).clock(p.clock()).minutes(26)
                    .everySecond(p.onset(), 60 * 26, 60, w -> w.host().add(SYMBOL_ERRORS, 10))
                    .firesAfterSecond("FabricSymbolErrorsRising", "device=\"mlx5_0\"", p.onset());
            // the last collection's interval holds errors only where collections are a minute apart
            s.add(p.clock().collectEvery() == 60 ? cable.diagnose("port_errors_rising", Severity.WARNING) : cable);
        }
        for (Phase p : List.of(PHASES.get(0), PHASES.get(3), PHASES.get(4))) {
            s.add(Scenario.incident("PFC pause storm, the NIC's watchdog fired once (" + p.name() + ")", BIG).clock(p.clock()).minutes(16)
                    .atSecond(p.onset(), w -> w.host().ethtool("ens1f0np0", "tx_pause_storm_error_events", 1))
                    .firesAfterSecond("FabricPauseStorm", "netdev=\"ens1f0np0\",severity=\"critical\"", p.onset()));
        }
        // ---- the slowest rate each rate rule is meant to catch ----
        for (Phase p : List.of(PHASES.get(1), PHASES.get(2))) {
            s.add(Scenario.incident("symbol errors at 3/min, just above 120/h (" + p.name() + ")", IB).clock(p.clock()).minutes(26)
                    .everySecond(p.onset(), 60 * 26, 60, w -> w.host().add(SYMBOL_ERRORS, 3))
                    .firesAfterSecond("FabricSymbolErrorsRising", "device=\"mlx5_0\"", p.onset()));
        }
        Phase late = PHASES.get(2);
        s.add(Scenario.incident("PHY CRC errors at 3/min on a RoCE port (" + late.name() + ")", BIG).clock(late.clock()).minutes(26)
                .everySecond(late.onset(), 60 * 26, 60, w -> w.host().ethtool("ens3f1np0", "rx_crc_errors_phy", 3))
                .firesAfterSecond("FabricPhyErrorsRising", "netdev=\"ens3f1np0\"", late.onset()));
        // events counted in a window are caught when two evaluations in a row see them all: spread over
        // at most the window less two scrape intervals and the hold (7 of the 10 minutes here)
        s.add(Scenario.incident("two link flaps 7 minutes apart (" + late.name() + ")", IB).clock(late.clock()).minutes(26)
                .atSecond(late.onset(), w -> w.host().add(NIC0 + "/ports/1/counters/link_downed", 1))
                .atSecond(late.onset() + 420, w -> w.host().add(NIC0 + "/ports/1/counters/link_downed", 1))
                .firesAfterSecond("FabricPortFlapping", "device=\"mlx5_0\"", late.onset()));
        s.add(Scenario.incident("three link retrains 3 minutes apart (" + late.name() + ")", IB).clock(late.clock()).minutes(26)
                .everySecond(late.onset(), late.onset() + 360, 180, w -> w.host().add(NIC0 + "/ports/1/counters/link_error_recovery", 1))
                .firesAfterSecond("FabricLinkErrorRecovery", "device=\"mlx5_0\"", late.onset()));
        s.add(Scenario.incident("3000 PFC pause frames/s sent without end, no watchdog (" + late.name() + ")", BIG).clock(late.clock())
                .minutes(26)
                .everySecond(late.onset(), 60 * 26, 60, w -> w.host().ethtool("ens1f0np0", "tx_prio3_pause", 3000 * 60))
                .firesAfterSecond("FabricPauseFramesHigh", "netdev=\"ens1f0np0\"", late.onset()));
        s.add(Scenario.incident("RDMA requests time out twice a second (" + late.name() + ")", BIG).clock(late.clock()).minutes(26)
                .everySecond(late.onset(), 60 * 26, 60, w -> w.host().add(NIC0 + "/ports/1/hw_counters/local_ack_timeout_err", 120))
                .firesAfterSecond("FabricRetransmissionsHigh", "device=\"mlx5_0\"", late.onset()));
        // ---- level states at the longest way in ----
        s.add(Scenario.incident("symbol error counter pinned at its maximum (" + late.name() + ")", IB).clock(late.clock()).minutes(16)
                .atSecond(late.onset(), w -> w.host().write(SYMBOL_ERRORS, "65535"))
                .firesAfterSecond("FabricCounterSaturated", "device=\"mlx5_0\"", late.onset())
                .diagnose("counter_saturated", Severity.WARNING));
        s.add(Scenario.incident("QPs piling up in the ERR state (" + late.name() + ")", BIG).clock(late.clock()).minutes(16)
                .atSecond(late.onset(), w -> qps(w, 40))
                .firesAfterSecond("FabricQpPressure", "device=\"mlx5_0\"", late.onset())
                .diagnose("qp_pressure", Severity.WARNING));
        s.add(Scenario.incident("PFC turned off on the RDMA priority (" + late.name() + ")", BIG).clock(late.clock()).minutes(16)
                .atSecond(late.onset(), w -> w.host().write("fabricd/dcb/ens6f1np0.json",
                        w.host().read("fabricd/dcb/ens6f1np0.json").replaceFirst("\"enabled\": \\[\\s*3\\s*]", "\"enabled\": []")))
                .firesAfterSecond("FabricPfcMissing", "netdev=\"ens6f1np0\",severity=\"critical\"", late.onset())
                .diagnose("pfc_missing", Severity.CRITICAL));
        Phase chart = PHASES.get(4);
        s.add(Scenario.incident("InfiniBand link down (" + chart.name() + ")", IB).clock(chart.clock()).minutes(16)
                .atSecond(chart.onset(), w -> w.host().port("mlx5_0", 1, "1: DOWN", "2: Polling"))
                .firesAfterSecond("FabricPortDown", "device=\"mlx5_0\",port=\"1\",severity=\"critical\"", chart.onset())
                .diagnose("link_down", Severity.CRITICAL));
        // ---- normal events the windows must let pass ----
        Phase minute = PHASES.get(0);
        s.add(Scenario.normal("a single link flap, seen down by one collection (" + minute.name() + ")", IB).clock(minute.clock())
                .minutes(30)
                .atSecond(minute.onset(), w -> {
                    w.host().port("mlx5_0", 1, "1: DOWN", "2: Polling");
                    w.host().add(NIC0 + "/ports/1/counters/link_downed", 1);
                    w.host().add(NIC0 + "/ports/1/counters/link_error_recovery", 1);
                    w.host().add(SYMBOL_ERRORS, 300); // the errors of a link that trains again
                    w.host().add(NIC0 + "/ports/1/counters/port_rcv_errors", 20);
                })
                .atSecond(minute.onset() + 80, w -> w.host().port("mlx5_0", 1, "4: ACTIVE", "5: LinkUp"))
                .quiet("FabricPortDown").quiet("FabricPortFlapping").quiet("FabricSymbolErrorsRising").quiet("FabricLinkErrorRecovery")
                .quiet("FabricLinkErrorsRising"));
        s.add(Scenario.normal("a burst of pauses for a minute as a job starts (" + chart.name() + ")", BIG).clock(chart.clock())
                .minutes(17)
                .everySecond(chart.onset(), chart.onset() + 50, 10, w -> {
                    w.host().ethtool("ens1f0np0", "tx_prio3_pause", 20_000 * 10);
                    w.host().ethtool("ens1f0np0", "rx_prio3_pause", 20_000 * 10);
                    w.host().ethtool("ens1f0np0", "rx_prio3_pause_duration", 9_000_000); // 90 % of 10 s, in us
                })
                .quiet("FabricPauseStorm").quiet("FabricPauseFramesHigh").quiet("FabricPfcPauseTimeHigh"));
        s.add(Scenario.normal("a killed job's QPs in ERR for a minute (" + minute.name() + ")", BIG).clock(minute.clock()).minutes(20)
                .atSecond(minute.onset(), w -> qps(w, 40))
                .atSecond(minute.onset() + 60, w -> qps(w, 0))
                .quiet("FabricQpPressure").diagnose("qp_pressure", null));
        return s;
    }

    /** RDMA netlink's QP dump (the side-car fabricd reads on a snapshot): {@code err} QPs of mlx5_0 in the ERR state. */
    private static void qps(Scenario.World w, int err) {
        StringJoiner j = new StringJoiner(",\n", "[\n", "\n]");
        for (int i = 0; i < err; i++) {
            j.add("  {\"ifname\": \"mlx5_0\", \"port\": 1, \"lqpn\": " + (1000 + i) + ", \"type\": \"RC\", \"state\": \"ERR\", "
                    + "\"pid\": 4242, \"comm\": \"python3\"}");
        }
        w.host().write("fabricd/rdma/qp.json", err == 0 ? "[]" : j.toString());
    }
}
