package io.fabricd.agent.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.agent.Main;
import io.fabricd.agent.Requirements;
import io.fabricd.agent.config.AgentConfig;
import io.fabricd.collectors.Fixtures;
import io.fabricd.diagnosis.run.Report;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Severity;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The alert rules against what agents serve on hosts that live through normal events and
 * incidents (docs/alerts.md, "The scenario suite"). Each scenario changes a fixture host as time
 * goes on; an agent ({@link SimulatedAgent}: the agent's own collection and judgement) collects it
 * and Prometheus scrapes it on the scenario's {@link Clock}; each scrape becomes promtool's input
 * series (a series that disappears gets a stale marker, as a scrape gives it; a stopped agent's
 * target is down and all its series stale); and `promtool test rules` evaluates every shipped rule
 * file over them, checking each scenario's claims on the ALERTS series: no critical alert at any
 * time on a normal event; on an incident, the named alert for the named device not before its
 * onset and at the latest as long after it as its rule allows ({@link RuleTiming}: within 5
 * minutes for a level state, 15 for a rate). The last collection's diagnosis must agree.
 */
class AlertScenariosTest {
    static final Instant T0 = Instant.parse("2026-11-02T00:00:00Z");
    static final String BIG = "host-f-big";
    static final String IB = "host-a-ib";
    static final String NIC0 = "sys/class/infiniband/mlx5_0";
    static final String ND0 = "sys/class/net/ens1f0np0";
    static final String GPU0 = "0000:18:00.0";

    /** What an agent's target adds to every series (the job's name deliberately without "fabricd"). */
    static final Map<String, String> TARGET = Map.of("instance", "10.1.0.17:9530", "job", "node-fabric", "node", "gpu-node-17",
            "namespace", "monitoring");

    static List<Scenario> scenarios() {
        List<Scenario> s = new ArrayList<>();
        // ---- normal events: never a page ----
        s.add(Scenario.normal("uncabled second port of a dual-port card", IB)
                .at(0, w -> {
                    w.host().copy(NIC0 + "/ports/1", w.host().real(NIC0) + "/ports/2");
                    w.host().port("mlx5_0", 2, "1: DOWN", "2: Polling");
                })
                .quiet("FabricPortDown").diagnose("link_down", Severity.INFO));
        s.add(Scenario.normal("unused RoCE port without carrier", BIG)
                .at(0, w -> {
                    w.host().port("mlx5_15", 1, "1: DOWN", "3: Disabled");
                    w.host().write("sys/class/net/ens8f1np0/operstate", "down");
                    w.host().write("sys/class/net/ens8f1np0/carrier", "0");
                })
                .quiet("FabricPortDown").quiet("FabricPfcMissing").quiet("FabricMtuMismatch").quiet("FabricTrustMismatch")
                .diagnose("link_down", Severity.INFO));
        s.add(Scenario.normal("netdev taken down by an administrator", BIG)
                .at(10, w -> {
                    w.host().port("mlx5_0", 1, "1: DOWN", "3: Disabled");
                    w.host().write(ND0 + "/operstate", "down");
                    w.host().remove(ND0 + "/carrier"); // the kernel refuses carrier reads while down
                })
                .quiet("FabricPortDown"));
        s.add(Scenario.normal("InfiniBand port disabled by an administrator", IB)
                .at(10, w -> w.host().port("mlx5_0", 1, "1: DOWN", "3: Disabled"))
                .quiet("FabricPortDown").diagnose("link_down", null));
        s.add(Scenario.normal("job killed: one burst of failed QPs", BIG)
                .at(0, w -> w.host().write(NIC0 + "/ports/1/hw_counters/req_transport_retries_exceeded", "0"))
                .at(12, w -> {
                    w.host().add(NIC0 + "/ports/1/hw_counters/local_ack_timeout_err", 40);
                    w.host().add(NIC0 + "/ports/1/hw_counters/req_transport_retries_exceeded", 40);
                })
                .quiet("FabricTransportRetriesExceeded"));
        s.add(Scenario.normal("driver reload that takes one collection", BIG)
                .at(10, w -> hideDevice(w.host(), "mlx5_3", "ens2f1np0"))
                .at(11, w -> {
                    restoreDevice(w.host(), "mlx5_3", "ens2f1np0");
                    w.host().write("sys/class/infiniband/mlx5_3/ports/1/counters/link_downed", "0");
                })
                .quiet("FabricHardwareMissing").diagnose("hardware_missing", null));
        s.add(Scenario.normal("counters cleared with perfquery -R", IB)
                .at(10, w -> {
                    for (String c : List.of("symbol_error", "link_downed", "link_error_recovery", "port_rcv_errors", "port_xmit_data")) {
                        w.host().write(NIC0 + "/ports/1/counters/" + c, "0");
                    }
                })
                .quiet("FabricPortFlapping").quiet("FabricLinkErrorsRising"));
        s.add(Scenario.normal("agent restarted (a rollout)", BIG)
                .at(10, w -> w.agent().stop())
                .at(11, w -> w.agent().start(w.now()))
                .quiet("FabricdDown").quiet("FabricHardwareMissing"));
        s.add(Scenario.normal("node reboot: devices and links come back while it boots", BIG)
                .minutes(45)
                .at(10, w -> w.agent().stop())
                .at(17, w -> {
                    w.host().boot(w.now().getEpochSecond() - 60);
                    hideDevice(w.host(), "mlx5_5", "ens3f1np0"); // still probing when the agent starts
                    w.host().port("mlx5_0", 1, "1: DOWN", "2: Polling");
                    w.host().write(ND0 + "/carrier", "0");
                    for (String c : List.of("link_downed", "symbol_error", "port_rcv_errors")) {
                        w.host().write(NIC0 + "/ports/1/counters/" + c, "0");
                    }
                    w.agent().start(w.now());
                })
                .at(19, w -> restoreDevice(w.host(), "mlx5_5", "ens3f1np0"))
                .at(20, w -> {
                    w.host().port("mlx5_0", 1, "4: ACTIVE", "5: LinkUp");
                    w.host().write(ND0 + "/carrier", "1");
                })
                .quiet("FabricdDown").diagnose("hardware_missing", null));
        s.add(Scenario.normal("heavy but healthy congestion", BIG)
                .every(5, 39, 1, w -> {
                    w.host().ethtool("ens1f0np0", "tx_prio3_pause", 1500 * 60);
                    w.host().ethtool("ens1f0np0", "rx_prio3_pause", 1200 * 60);
                    w.host().ethtool("ens1f0np0", "rx_prio3_pause_duration", 24_000_000); // 40 % of a minute, in us
                    w.host().add(NIC0 + "/ports/1/hw_counters/np_ecn_marked_roce_packets", 3_000_000);
                    w.host().add(NIC0 + "/ports/1/hw_counters/np_cnp_sent", 200_000);
                    w.host().add(NIC0 + "/ports/1/hw_counters/rp_cnp_handled", 200_000);
                    w.host().add(NIC0 + "/ports/1/counters/port_xmit_wait", 50_000_000);
                    w.host().add(NIC0 + "/ports/1/counters/port_rcv_packets", 20_000_000);
                })
                .quiet("FabricPauseStorm").quiet("FabricPauseFramesHigh").quiet("FabricPfcPauseTimeHigh"));
        s.add(Scenario.normal("side-cars missing (no DCB, ethtool or verbs answers)", BIG)
                .at(0, w -> {
                    w.host().remove("fabricd/dcb");
                    w.host().remove("fabricd/ethtool");
                    w.host().remove("fabricd/verbs");
                })
                .quiet("FabricPfcMissing").quiet("FabricMtuMismatch"));
        s.add(Scenario.normal("port taken out of service and accepted", BIG)
                .at(10, w -> {
                    w.host().port("mlx5_14", 1, "1: DOWN", "3: Disabled");
                    w.host().write("sys/class/net/ens8f0np0/operstate", "down");
                    w.host().write("sys/class/net/ens8f0np0/carrier", "0");
                    accept(w);
                })
                .quiet("FabricPortDown").diagnose("link_down", Severity.INFO));
        s.add(Scenario.normal("a card removed and the inventory accepted", BIG)
                .at(10, w -> {
                    hideDevice(w.host(), "mlx5_9", "ens5f1np0");
                    accept(w);
                })
                .quiet("FabricHardwareMissing").diagnose("hardware_missing", null));
        s.add(Scenario.normal("host without RDMA on purpose", BIG)
                .config(c -> new AgentConfig(c.listen(), c.collection(), c.stateDir(), c.http(), c.rdma(), c.netdev(), c.probe(),
                        c.diagnosis().withExpectRdmaDevices(false), c.bandwidth(), c.topology()))
                .at(0, w -> w.host().remove("sys/class/infiniband"))
                .quiet("FabricHardwareMissing").diagnose("hardware_missing", null));
        s.add(Scenario.normal("a port that comes up late is then expected", BIG)
                .at(0, w -> {
                    w.host().port("mlx5_13", 1, "1: DOWN", "3: Disabled");
                    w.host().write("sys/class/net/ens7f1np0/carrier", "0");
                })
                .at(8, w -> {
                    w.host().port("mlx5_13", 1, "4: ACTIVE", "5: LinkUp");
                    w.host().write("sys/class/net/ens7f1np0/carrier", "1");
                })
                .quiet("FabricPortDown"));
        s.add(Scenario.normal("agent without CAP_SYS_ADMIN: config spaces read to 64 bytes", BIG)
                .at(0, w -> {
                    // the kernel's cut for an unprivileged reader, on mlx5_0, GPU0 and the switch between them
                    String endpoint = "pciutils-cap-pcie-2.lspci-xxxx.txt";
                    String port = "pciutils-cap-pcie-1.lspci-xxxx.txt";
                    Map.of(GPU0, endpoint, "0000:19:00.0", endpoint, "0000:15:01.0", port, "0000:16:00.0", port, "0000:17:00.0", port,
                            "0000:17:01.0", port).forEach((bdf, dump) -> w.host().writeBytes(w.host().real("sys/bus/pci/devices/" + bdf)
                            + "/config", Arrays.copyOf(Fixtures.lspciDump(dump), 64)));
                })
                .quiet("FabricPcieAcsRedirect").quiet("FabricPcieMaxReadRequest").quiet("FabricPcieMaxPayload")
                .diagnose("pcie_config_blind", Severity.INFO));
        // ---- incidents: the right alert, for the right device, within 15 minutes ----
        s.add(Scenario.incident("InfiniBand link down (cable pulled)", IB)
                .at(10, w -> w.host().port("mlx5_0", 1, "1: DOWN", "2: Polling"))
                .fires("FabricPortDown", "device=\"mlx5_0\",port=\"1\",severity=\"critical\"", 10)
                .diagnose("link_down", Severity.CRITICAL));
        s.add(Scenario.incident("cabled InfiniBand port that no subnet manager ever configured", IB)
                .at(0, w -> {
                    w.host().copy(NIC0 + "/ports/1", w.host().real(NIC0) + "/ports/2");
                    w.host().port("mlx5_0", 2, "2: INIT", "5: LinkUp"); // learned by the inventory as never up
                })
                .fires("FabricPortDown", "device=\"mlx5_0\",port=\"2\",severity=\"warning\"", 0)
                .diagnose("link_down", Severity.WARNING));
        s.add(Scenario.incident("RoCE link down (no carrier)", BIG)
                .at(10, w -> {
                    w.host().port("mlx5_4", 1, "1: DOWN", "3: Disabled");
                    w.host().write("sys/class/net/ens3f0np0/carrier", "0");
                    w.host().write("sys/class/net/ens3f0np0/operstate", "down");
                })
                .fires("FabricPortDown", "device=\"mlx5_4\",severity=\"critical\"", 10)
                .diagnose("link_down", Severity.CRITICAL));
        s.add(Scenario.incident("RDMA device vanished (driver unbound after a firmware error)", BIG)
                .at(10, w -> hideDevice(w.host(), "mlx5_6", "ens4f0np0"))
                .fires("FabricHardwareMissing", "device=\"mlx5_6\",severity=\"critical\"", 10)
                .diagnose("hardware_missing", Severity.CRITICAL));
        s.add(Scenario.incident("GPU fell off the bus (reads all ones)", BIG)
                .at(10, w -> {
                    w.host().write("sys/bus/pci/devices/" + GPU0 + "/current_link_width", "63");
                    w.host().write("sys/bus/pci/devices/" + GPU0 + "/current_link_speed", "Unknown");
                })
                .fires("FabricHardwareMissing", "pci=\"" + GPU0 + "\",severity=\"critical\"", 10)
                .diagnose("hardware_missing", Severity.CRITICAL));
        s.add(Scenario.incident("GPU removed from the bus", BIG)
                .at(10, w -> {
                    String real = w.host().real("sys/bus/pci/devices/" + GPU0);
                    w.host().hide("sys/bus/pci/devices/" + GPU0);
                    w.host().hide(real);
                })
                .fires("FabricHardwareMissing", "pci=\"" + GPU0 + "\",severity=\"critical\"", 10)
                .diagnose("hardware_missing", Severity.CRITICAL));
        s.add(Scenario.incident("no RDMA device at all", BIG)
                .at(0, w -> w.host().remove("sys/class/infiniband"))
                .fires("FabricHardwareMissing", "severity=\"critical\"", 0)
                .diagnose("hardware_missing", Severity.CRITICAL));
        s.add(Scenario.incident("InfiniBand link flapping between scrapes", IB)
                .every(10, 30, 4, w -> w.host().add(NIC0 + "/ports/1/counters/link_downed", 1))
                .fires("FabricPortFlapping", "device=\"mlx5_0\"", 10));
        s.add(Scenario.incident("RoCE link flapping between scrapes", BIG)
                .at(0, w -> w.host().write("sys/class/net/ens2f0np0/carrier_changes", "2"))
                .every(10, 30, 4, w -> {
                    w.host().ethtool("ens2f0np0", "link_down_events_phy", 1);
                    w.host().add("sys/class/net/ens2f0np0/carrier_changes", 2);
                })
                .fires("FabricPortFlapping", "device=\"mlx5_2\"", 10));
        s.add(Scenario.incident("congestion counter pinned at its 32-bit maximum", IB)
                .at(10, w -> w.host().write(NIC0 + "/ports/1/counters/port_xmit_wait", "4294967295"))
                .fires("FabricCounterSaturated", "device=\"mlx5_0\"", 10)
                .diagnose("counter_saturated", Severity.WARNING));
        s.add(Scenario.incident("link retraining once a minute", IB)
                .every(10, 39, 1, w -> w.host().add(NIC0 + "/ports/1/counters/link_error_recovery", 1))
                .fires("FabricLinkErrorRecovery", "device=\"mlx5_0\"", 10));
        s.add(Scenario.incident("QPs failing after retries for many minutes", BIG)
                .at(0, w -> w.host().write("sys/class/infiniband/mlx5_2/ports/1/hw_counters/req_transport_retries_exceeded", "0"))
                .every(10, 39, 1, w -> w.host().add("sys/class/infiniband/mlx5_2/ports/1/hw_counters/req_transport_retries_exceeded", 25))
                .fires("FabricTransportRetriesExceeded", "device=\"mlx5_2\",severity=\"critical\"", 10));
        s.add(Scenario.incident("PFC pause storm (the NIC's watchdog fired)", BIG)
                .at(10, w -> w.host().ethtool("ens1f0np0", "tx_pause_storm_error_events", 1))
                .fires("FabricPauseStorm", "netdev=\"ens1f0np0\",severity=\"critical\"", 10));
        s.add(Scenario.incident("PHY CRC errors on a RoCE port", BIG)
                .every(10, 39, 1, w -> w.host().ethtool("ens3f1np0", "rx_crc_errors_phy", 40))
                .fires("FabricPhyErrorsRising", "netdev=\"ens3f1np0\"", 10));
        s.add(Scenario.incident("symbol errors on an InfiniBand port", IB)
                .every(10, 39, 1, w -> w.host().add(NIC0 + "/ports/1/counters/symbol_error", 40))
                .fires("FabricSymbolErrorsRising", "device=\"mlx5_0\"", 10));
        s.add(Scenario.incident("link trained at half its width", BIG)
                .at(10, w -> w.host().write("sys/class/infiniband/mlx5_7/ports/1/rate", "200 Gb/sec (2X NDR)"))
                .fires("FabricLinkDegraded", "device=\"mlx5_7\"", 10)
                .diagnose("link_degraded", Severity.WARNING));
        s.add(Scenario.incident("GPU PCIe link at half width", BIG)
                .at(10, w -> w.host().write("sys/bus/pci/devices/" + GPU0 + "/current_link_width", "8"))
                .fires("FabricPcieDegraded", "pci=\"" + GPU0 + "\"", 10));
        s.add(Scenario.incident("netdev MTU lowered to 1500", BIG)
                .at(10, w -> {
                    w.host().write("sys/class/net/ens6f0np0/mtu", "1500");
                    // verbs then reports the active MTU the netdev allows (1500 - headers: 1024)
                    w.host().write("fabricd/verbs/mlx5_10.json",
                            w.host().read("fabricd/verbs/mlx5_10.json").replace("\"active_mtu\": 4096", "\"active_mtu\": 1024"));
                })
                .fires("FabricMtuMismatch", "netdev=\"ens6f0np0\"", 10));
        s.add(Scenario.incident("PFC turned off on the RDMA priority", BIG)
                .at(10, w -> w.host().write("fabricd/dcb/ens6f1np0.json",
                        w.host().read("fabricd/dcb/ens6f1np0.json").replaceFirst("\"enabled\": \\[\\s*3\\s*]", "\"enabled\": []")))
                .fires("FabricPfcMissing", "netdev=\"ens6f1np0\",severity=\"critical\"", 10)
                .diagnose("pfc_missing", Severity.CRITICAL));
        s.add(Scenario.incident("trust mode changed to pcp on one port", BIG)
                .at(10, w -> w.host().write("fabricd/dcb/ens7f0np0.json",
                        w.host().read("fabricd/dcb/ens7f0np0.json").replaceAll("\"selector\": \"dscp\"", "\"selector\": \"none\"")))
                .fires("FabricTrustMismatch", "netdev=\"ens7f0np0\"", 10));
        s.add(Scenario.incident("GPUDirect peer-memory module unloaded", BIG)
                .at(10, w -> {
                    w.host().write("proc/modules", w.host().read("proc/modules").replaceAll("(?m)^nvidia_peermem .*\\n", ""));
                    w.host().remove("sys/module/nvidia_peermem");
                })
                .fires("FabricGpuDirectOff", "severity=\"critical\"", 10)
                .diagnose("gpudirect_off", Severity.CRITICAL));
        s.addAll(TimeToPageScenarios.all());
        return s;
    }

    /** A driver unbind: the RDMA device and its netdev leave sysfs (the PCI function stays). */
    static void hideDevice(ScenarioHost h, String device, String netdev) {
        String dev = h.real("sys/class/infiniband/" + device);
        String nd = h.real("sys/class/net/" + netdev);
        h.hide("sys/class/infiniband/" + device);
        h.hide(dev);
        h.hide("sys/class/net/" + netdev);
        h.hide(nd);
        h.write(".aside/" + device + ".paths", dev + "\n" + nd + "\n");
    }

    static void restoreDevice(ScenarioHost h, String device, String netdev) {
        String[] p = h.read(".aside/" + device + ".paths").split("\n");
        h.restore(p[0]);
        h.restore(p[1]);
        h.restore("sys/class/infiniband/" + device);
        h.restore("sys/class/net/" + netdev);
    }

    /** `fabricd inventory accept` against the state folder while the agent runs (the real command, in this JVM). */
    static void accept(Scenario.World w) {
        StringWriter out = new StringWriter();
        int rc = Main.execute(new String[] {"inventory", "accept", "--root", w.host().root().toString(), "--state-dir",
                w.host().root().resolveSibling("state").toString()}, new PrintWriter(out), new PrintWriter(out));
        assertThat(rc).as(out.toString()).isZero();
    }

    @Test
    void normalEventsNeverPageAndIncidentsFireTheirAlert(@TempDir Path tmp) throws Exception {
        Path promtool = Requirements.program("promtool", "apt-get install prometheus");
        Path repo = Requirements.repoRoot();
        List<Scenario> all = scenarios();
        assertThat(all.stream().filter(x -> !x.incident)).hasSizeGreaterThanOrEqualTo(10);
        assertThat(all.stream().filter(x -> x.incident)).hasSizeGreaterThanOrEqualTo(15);
        List<Path> rules = ruleFiles(repo);
        Set<String> used = namesUsed(rules);
        Map<String, RuleTiming> timing = RuleTiming.of(rules);
        StringBuilder yaml = new StringBuilder("rule_files:\n");
        rules.forEach(r -> yaml.append("  - ").append(quote(r.toString())).append('\n'));
        yaml.append("evaluation_interval: 1m\ntests:\n");
        List<String> disagreements = new ArrayList<>();
        int i = 0;
        for (Scenario sc : all) {
            Path dir = tmp.resolve("s" + i++);
            Files.createDirectories(dir);
            yaml.append(replay(sc, dir, used, timing, disagreements));
        }
        Path test = tmp.resolve("scenarios.test.yaml");
        Files.writeString(test, yaml, StandardCharsets.UTF_8);
        Process p = new ProcessBuilder(promtool.toString(), "test", "rules", test.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
        System.out.println("alert scenarios: " + all.size() + " (" + all.stream().filter(x -> !x.incident).count() + " normal events, "
                + all.stream().filter(x -> x.incident).count() + " incidents) through " + rules.size() + " rule files; promtool:\n"
                + out.strip());
        assertThat(p.exitValue()).as("promtool test rules on the scenarios (" + test + "):\n" + out).isZero();
        assertThat(disagreements).as("fabricd diagnose at the end of each scenario").isEmpty();
    }

    /**
     * Every alert fires within its kind's budget after an onset, derived from its rule (window,
     * {@code for:}, the collection, scrape and evaluation intervals: {@link RuleTiming}), and
     * docs/alerts.md's table ("Time to page") says so with the same numbers.
     */
    @Test
    void everyAlertPagesWithinItsBudgetAsDocumented() throws Exception {
        Path repo = Requirements.repoRoot();
        Map<String, RuleTiming> timing = RuleTiming.of(ruleFiles(repo));
        Map<String, List<String>> rows = timeToPageRows(Files.readString(repo.resolve("docs/alerts.md"), StandardCharsets.UTF_8));
        List<String> wrong = new ArrayList<>();
        for (RuleTiming t : timing.values()) {
            String how = "collection, scrape and evaluation " + RuleTiming.format(RuleTiming.LAG) + " + window " + RuleTiming.format(t.build())
                    + " + for " + RuleTiming.format(t.hold());
            if (t.budget() != null && t.worst().compareTo(t.budget()) > 0) {
                wrong.add(t.alert() + " (" + t.kind().id() + ") fires up to " + RuleTiming.format(t.worst()) + " after its onset (" + how
                        + "), over its budget of " + RuleTiming.format(t.budget()));
            }
            List<String> expected = List.of(t.severity(), t.kind().id(), RuleTiming.format(t.build()), RuleTiming.format(t.hold()),
                    RuleTiming.format(t.worst()), t.budget() == null ? "none" : RuleTiming.format(t.budget()));
            List<String> row = rows.get(t.alert());
            if (row == null) {
                wrong.add(t.alert() + ": no row in docs/alerts.md, \"Time to page\"; it reads " + expected + " (" + how + ")");
            } else if (!row.equals(expected)) {
                wrong.add(t.alert() + ": docs/alerts.md says " + row + ", the rule " + expected + " (" + how + ")");
            }
        }
        rows.keySet().stream().filter(a -> !timing.containsKey(a)).forEach(a -> wrong.add(a + ": in docs/alerts.md, but no rule has it"));
        assertThat(wrong).as("time to page of the shipped alerts").isEmpty();
    }

    /**
     * The rows of docs/alerts.md's "Time to page" table by alert: severity, kind, window, for, at
     * most and budget (each cell's first word).
     */
    static Map<String, List<String>> timeToPageRows(String doc) {
        int start = doc.indexOf("\n## Time to page\n");
        assertThat(start).as("docs/alerts.md has a section \"Time to page\"").isNotNegative();
        int end = doc.indexOf("\n## ", start + 1);
        Map<String, List<String>> rows = new LinkedHashMap<>();
        for (String line : doc.substring(start, end < 0 ? doc.length() : end).split("\n")) {
            if (!line.startsWith("| `")) {
                continue;
            }
            String[] cells = line.substring(1, line.length() - 1).split("\\|");
            List<String> first = new ArrayList<>();
            for (int i = 1; i <= 6; i++) {
                first.add(cells[i].strip().split(" ")[0]);
            }
            rows.put(cells[0].strip().replace("`", ""), first);
        }
        return rows;
    }

    static List<Path> ruleFiles(Path repo) throws IOException {
        try (Stream<Path> files = Files.list(repo.resolve("alerts"))) {
            return files.filter(p -> p.toString().endsWith(".rules.yaml")).sorted().toList();
        }
    }

    /** One scrape of the agent: its series, or null when the target was down. */
    record Scrape(Map<String, Double> values) {
    }

    /** One scenario as one promtool test group; the diagnosis at its end checked into {@code disagreements}. */
    static String replay(Scenario sc, Path dir, Set<String> used, Map<String, RuleTiming> timing, List<String> disagreements) {
        AgentConfig cfg = sc.config.apply(AgentConfig.defaults());
        ScenarioHost host = ScenarioHost.of(sc.fixture, dir.resolve("host"), T0.getEpochSecond() - 86_400);
        SimulatedAgent agent = new SimulatedAgent(host, dir.resolve("state"), cfg);
        agent.start(T0);
        int tick = tick(sc);
        // one entry per tick: null where nothing scraped
        List<Scrape> scrapes = new ArrayList<>();
        for (int second = 0; second <= 60 * sc.minutes; second += tick) {
            Instant now = T0.plusSeconds(second);
            Scenario.World w = new Scenario.World(host, agent, now);
            for (var a : sc.actions.getOrDefault(second, List.of())) {
                a.accept(w);
            }
            if (agent.running() && sc.clock.collects(second)) {
                agent.collect(now);
            }
            scrapes.add(sc.clock.scrapes(second) ? new Scrape(agent.running() ? agent.scrape() : null) : null);
        }
        Report last = agent.lastReport();
        if (sc.finding != null) {
            List<Finding> fs = last.findings().stream().filter(f -> f.check().equals(sc.finding)).toList();
            boolean ok = sc.findingSeverity == null ? fs.stream().noneMatch(f -> f.severity().atLeast(Severity.WARNING))
                    : fs.stream().anyMatch(f -> f.severity() == sc.findingSeverity);
            if (!ok) {
                disagreements.add(sc.name + ": expected " + sc.finding + " " + (sc.findingSeverity == null ? "not above info"
                        : sc.findingSeverity.id()) + ", diagnose said " + fs.stream().map(f -> f.severity().id() + " " + f.summary()).toList());
            }
        }
        if (!sc.incident && last.hasAtLeast(Severity.CRITICAL)) {
            disagreements.add(sc.name + ": a normal event, but diagnose reports critical: " + last.findings().stream()
                    .filter(f -> f.severity() == Severity.CRITICAL).map(Finding::summary).toList());
        }
        return group(sc, tick, scrapes, used, timing);
    }

    /** The step of a scenario's clock: the greatest common divisor of a minute, its intervals and phases, and its actions' times. */
    static int tick(Scenario sc) {
        int t = 60;
        for (int v : List.of(sc.clock.collectEvery(), sc.clock.collectAt(), sc.clock.scrapeEvery(), sc.clock.scrapeAt())) {
            t = gcd(t, v);
        }
        for (int v : sc.actions.keySet()) {
            t = gcd(t, v);
        }
        return t;
    }

    private static int gcd(int a, int b) {
        return b == 0 ? a : gcd(b, a % b);
    }

    static String group(Scenario sc, int tick, List<Scrape> scrapes, Set<String> used, Map<String, RuleTiming> timing) {
        Set<String> keys = new LinkedHashSet<>();
        for (Scrape s : scrapes) {
            if (s != null && s.values() != null) {
                s.values().keySet().stream().filter(k -> used.contains(TextFormat.name(k))).forEach(keys::add);
            }
        }
        StringBuilder y = new StringBuilder();
        y.append("  # scenario: ").append(sc.name).append(sc.incident ? " (incident)" : " (normal event)").append(", ").append(sc.clock)
                .append('\n');
        y.append("  - interval: ").append(tick).append("s\n    input_series:\n");
        List<String> up = new ArrayList<>();
        for (Scrape s : scrapes) {
            up.add(s == null ? "_" : s.values() == null ? "0" : "1");
        }
        y.append("      - series: ").append(quote(withTarget("up{}"))).append("\n        values: ").append(quote(values(up))).append('\n');
        for (String k : keys) {
            List<String> v = new ArrayList<>();
            Double before = null;
            for (Scrape s : scrapes) {
                if (s == null) {
                    v.add("_");
                    continue;
                }
                Double now = s.values() == null ? null : s.values().get(k);
                v.add(now != null ? format(now) : before != null ? "stale" : "_");
                before = now;
            }
            y.append("      - series: ").append(quote(withTarget(k))).append("\n        values: ").append(quote(values(v))).append('\n');
        }
        y.append("    promql_expr_test:\n");
        String tag = " # " + sc.name.replace('\n', ' ') + ", " + sc.clock;
        int end = 60 * sc.minutes;
        if (!sc.incident) {
            y.append(expect("count_over_time(ALERTS{alertstate=\"firing\",severity=\"critical\"}[" + (end + 60) + "s])" + tag, end, false));
        }
        for (Scenario.Fires f : sc.fires) {
            RuleTiming t = timing.get(f.alert());
            assertThat(t).as(sc.name + ": " + f.alert() + " is a shipped alert").isNotNull();
            assertThat(t.budget()).as(sc.name + ": " + f.alert() + " has a time-to-page budget").isNotNull();
            String firing = "ALERTS{alertname=\"" + f.alert() + "\",alertstate=\"firing\"," + f.matchers() + "}";
            // not before the incident: the last evaluation before its onset has not seen it fire
            int before = (f.onset() + 59) / 60 * 60 - 60;
            if (before > 0) {
                y.append(expect("count_over_time(" + firing + "[" + before + "s])" + tag, before, false));
            }
            // within its budget, and within the time its rule allows where that is shorter: by the last
            // evaluation at most that long after the onset
            int by = (f.onset() + (int) (t.worst().compareTo(t.budget()) < 0 ? t.worst() : t.budget()).toSeconds()) / 60 * 60;
            assertThat(by).as(sc.name + ": the scenario lasts as long as " + f.alert() + " may take").isLessThanOrEqualTo(end);
            y.append(expect("clamp_max(count(max_over_time(" + firing + "[" + (by - f.onset()) + "s])), 1)" + tag, by, true));
        }
        for (String q : sc.quiet) {
            y.append(expect("count_over_time(ALERTS{alertname=\"" + q + "\",alertstate=\"firing\"}[" + (end + 60) + "s])" + tag, end, false));
        }
        return y.toString();
    }

    /** A promql_expr_test: {@code expr} at {@code second} is 1 (true) or has no sample (false). */
    static String expect(String expr, int second, boolean one) {
        String y = "      - expr: " + quote(expr) + "\n        eval_time: " + second + "s\n        exp_samples:";
        return y + (one ? "\n          - labels: '{}'\n            value: 1\n" : " []\n");
    }

    /** promtool's values, runs of missing samples written _xN. */
    static String values(List<String> v) {
        StringBuilder sb = new StringBuilder();
        int i = 0;
        while (i < v.size()) {
            int j = i;
            while (v.get(i).equals("_") && j < v.size() && v.get(j).equals("_")) {
                j++;
            }
            if (j - i > 1) {
                sb.append("_x").append(j - i).append(' ');
                i = j;
            } else {
                sb.append(v.get(i)).append(' ');
                i++;
            }
        }
        return sb.toString().strip();
    }

    static String withTarget(String key) {
        String name = TextFormat.name(key);
        Map<String, String> labels = new TreeMap<>();
        Matcher m = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"").matcher(key.substring(name.length()));
        while (m.find()) {
            labels.put(m.group(1), m.group(2));
        }
        labels.putAll(TARGET);
        return TextFormat.key(name, labels);
    }

    static String format(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        return Double.toString(v);
    }

    static String quote(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                default -> sb.append(c);
            }
        }
        return sb.append('"').toString();
    }

    /** The fabric_* names, up and scrape_duration_seconds: what the rule files read. */
    static Set<String> namesUsed(List<Path> rules) throws IOException {
        Set<String> names = new TreeSet<>(List.of("up", "scrape_duration_seconds", "process_start_time_seconds"));
        Pattern p = Pattern.compile("\\b(fabric_[a-z0-9_]+)");
        for (Path r : rules) {
            Matcher m = p.matcher(Files.readString(r));
            while (m.find()) {
                String n = m.group(1);
                names.add(n);
                for (String suffix : List.of("_bucket", "_sum", "_count")) {
                    if (n.endsWith(suffix)) {
                        names.add(n.substring(0, n.length() - suffix.length()));
                    }
                }
            }
        }
        return names;
    }
}
