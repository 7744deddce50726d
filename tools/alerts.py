#!/usr/bin/env python3
"""Writes fabricd's Prometheus rule files (alerts/*.rules.yaml) from the rule lists below.

Edit the lists here, then run `python3 tools/alerts.py`; the YAML files are its output and are
committed (HelmChartTest and AlertRulesTest check that they are current). The policy every rule
follows is docs/alerts.md:

- severity: critical = a job on this node fails or runs degraded now and a human must act;
  warning = a ticket for today; info = dashboards only (routed nowhere by the example config).
- every rule has a `for:` and pages within its budget (docs/alerts.md, "Time to page"): a level
  state within 5 minutes of its onset (for: at most 2m), a rate within 15 (window + for: at most
  12m); a counter rule's for: at least its window, so that one burst does not fire it.
- summary and description say in words what is wrong and the first step of the fix: rules on
  fabric_finding print the finding's own summary and remediation (fabric_finding_text), never a
  pointer to an API; hosts are named by their `node` label (the Kubernetes node, or what a static
  scrape config sets), else by `instance`; no label is printed when it is empty.
- aggregations keep job, namespace, node and cluster (`without (...)`, never `by (instance, ...)`).
- runbook_url is RUNBOOK_BASE + page#anchor; the Helm chart replaces RUNBOOK_BASE with
  prometheusRule.runbookBaseUrl.
"""
import os
import sys

RUNBOOK_BASE = "https://github.com/fabricd/fabricd/blob/main/docs/"

HOST = "{{ with $labels.node }}{{ . }}{{ else }}{{ $labels.instance }}{{ end }}"
PORT = "{{ $labels.device }} port {{ $labels.port }}"
# the finding's subject, each part only when the finding has it
SUBJECT = ("{{ with $labels.device }}, {{ . }}{{ with $labels.port }} port {{ . }}{{ end }}{{ end }}"
           "{{ with $labels.netdev }}, {{ . }}{{ end }}{{ with $labels.priority }}, priority {{ . }}{{ end }}"
           "{{ with $labels.gpu }}, GPU {{ . }}{{ else }}{{ with $labels.pci }}, PCI {{ . }}{{ end }}{{ end }}"
           "{{ with $labels.peer }}, peer {{ . }}{{ end }}")
FINDING_LABELS = ["instance", "job", "check", "severity", "device", "port", "netdev", "priority", "gpu", "pci", "peer"]
FINDING_TEXT = (
    "{{ with printf `fabric_finding_text{"
    + ",".join(f"{l}=%q" for l in FINDING_LABELS)
    + "}` "
    + " ".join(f"$labels.{l}" for l in FINDING_LABELS)
    + " | query }}{{ with . | first }}{{ .Labels.summary }}. First step: {{ .Labels.remediation }}{{ end }}"
    "{{ else }}fabricd's check {{ $labels.check }} found this on " + HOST
    + "; `fabricd diagnose` on the host prints the evidence and the fix.{{ end }}")
# a host that booted moments ago is still probing devices and training links: the diagnosis says so
# itself (diagnosis.boot_grace) by making those findings warnings until then


def finding(alert, check, summary, page, for_="2m", severity=None, extra_expr=""):
    """A rule on fabric_finding: the finding's own severity (critical or warning) unless fixed."""
    sel = f'check="{check}", severity=~"critical|warning"' if severity is None else f'check="{check}", severity="{severity}"'
    return {
        "alert": alert,
        "expr": f"fabric_finding{{{sel}}} == 1" + extra_expr,
        "for": for_,
        "labels": {} if severity is None else {"severity": severity},
        "summary": summary + " on " + HOST + SUBJECT,
        "description": FINDING_TEXT,
        "runbook": f"{page}#{check}",
    }


def rule(alert, expr, for_, severity, summary, description, runbook):
    return {"alert": alert, "expr": expr, "for": for_, "labels": {"severity": severity}, "summary": summary,
            "description": description, "runbook": runbook}


FILES = {}

FILES["inventory"] = ("Hardware the host is expected to have (docs/alerts.md, \"The inventory\"): from the "
                      "hardware_missing finding, which the agent keeps across its restarts.", [
    ("fabricd-inventory", "inventory", [
        finding("FabricHardwareMissing", "hardware_missing", "Expected hardware is gone", "checks.md", for_="1m"),
    ]),
])

FILES["configuration"] = ("Configuration alerts: one per configuration check of docs/checks.md, from fabric_finding "
                          "(a level state read in one collection: they fire within 5 minutes of the collection that "
                          "shows it). The finding's severity (critical/warning) is the alert's; info findings never alert.", [
    ("fabricd-configuration", "configuration", [
        finding("FabricLinkDegraded", "link_degraded", "RDMA link below its expected rate or width", "checks.md"),
        finding("FabricPfcMissing", "pfc_missing", "PFC is off on the RDMA priority", "checks.md"),
        finding("FabricGlobalPauseWithPfc", "global_pause_with_pfc", "802.3x global pause is on next to PFC", "checks.md"),
        finding("FabricEcnDisabled", "ecn_disabled", "ECN/DCQCN is off for RoCE traffic", "checks.md"),
        finding("FabricTrustMismatch", "trust_mismatch", "QoS trust mode differs from the fabric's", "checks.md"),
        finding("FabricMtuMismatch", "mtu_mismatch", "MTU mismatch on the RDMA path", "checks.md"),
        finding("FabricRoceGidMissing", "roce_gid_missing", "RoCE port without a usable RoCE v2 GID", "checks.md"),
        finding("FabricGpuDirectOff", "gpudirect_off", "GPUDirect RDMA is not available", "checks.md"),
        finding("FabricNumaMisaffinity", "numa_misaffinity", "GPU and its nearest NIC on different NUMA nodes", "checks.md"),
        finding("FabricPcieDegraded", "pcie_degraded", "PCIe link below its capability", "checks.md"),
        finding("FabricPcieAcsRedirect", "pcie_acs_redirect", "ACS sends GPU-NIC peer-to-peer traffic to the root complex",
                "checks.md"),
        finding("FabricIommuTranslation", "iommu_translation", "The IOMMU translates GPUDirect DMA", "checks.md"),
        finding("FabricPcieMaxReadRequest", "pcie_max_read_request", "NIC PCIe Max Read Request below 4096 bytes", "checks.md"),
        finding("FabricPcieMaxPayload", "pcie_max_payload", "NIC PCIe Max Payload below what its path allows", "checks.md"),
        # no rule for pcie_relaxed_ordering and pcie_config_blind: their findings are info only (a state
        # fabricd cannot judge; PCIe checks blind without CAP_SYS_ADMIN), dashboards' business, never a page
        finding("FabricQpPressure", "qp_pressure", "Queue pairs near the device limit or piling up in error", "checks.md",
                for_="2m"),
        finding("FabricNeighborSpeedBelowHost", "neighbor_speed_below_host",
                "The switch port announces a lower speed than the host port", "checks.md"),
        # no rule for switch_pause_unexpected and switch_pause_missing: they judge the increase between two
        # collections, a finding that lasts one interval (like pause_storm); the pause and drop counters show it
    ]),
])

FILES["link"] = ("Link alerts. A port that must be up and is down pages (the link_down check decides which ports must "
                 "be up: docs/alerts.md); an unused, uncabled or administratively down port never does. Flaps between "
                 "two scrapes are seen in the counters: IB link_downed, a RoCE netdev's link down events and carrier "
                 "changes.", [
    ("fabricd-link", "link", [
        # critical: a port that must be up is down; warning: the driver's states disagree, or a RoCE
        # port is Disabled and nothing tells an administrator's doing from a failure
        finding("FabricPortDown", "link_down", "RDMA port down", "checks.md", for_="2m"),
        # one alert per port, whichever counter saw the flap: the RoCE netdev's counters are joined
        # to their port (fabric_port_info), and every branch ends with the same labels
        rule("FabricPortFlapping",
             "max without (counter) (\n"
             "  changes(fabric_port_up[10m]) >= 4\n"
             "    or increase(fabric_port_pma_total{counter=\"link_downed\"}[10m]) >= 2\n"
             ")\n"
             "or max without (netdev) (\n"
             "  (\n"
             "    increase(fabric_netdev_link_down_events_total[10m]) >= 2\n"
             "      or increase(fabric_netdev_carrier_changes_total[10m]) >= 4\n"
             "  )\n"
             "  * on (job, instance, netdev) group_left (device, port) max by (job, instance, netdev, device, port) (fabric_port_info)\n"
             ")",
             "1m", "warning",
             "RDMA link flapping on " + HOST + ": " + PORT,
             "The link of " + PORT + " on " + HOST
             + " went down repeatedly in the last 10 minutes ({{ $value | printf \"%.0f\" }} down "
             "events or state changes): jobs on it see timeouts. Check the cable, transceiver and switch port "
             "(`mlxlink`, `ethtool -m`), and the switch's log for the port; replace the cable if it repeats.",
             "checks.md#link_down"),
        rule("FabricLinkErrorRecovery",
             "increase(fabric_port_pma_total{counter=\"link_error_recovery\"}[10m]) >= 3",
             "1m", "warning",
             "RDMA link retraining on " + HOST + ": " + PORT,
             PORT + " on " + HOST + " retrained its link {{ $value | humanize }} times in 10 minutes (link_error_recovery): "
             "each retrain stalls traffic for milliseconds and is a marginal cable, transceiver or switch port. Check "
             "`mlxlink -d {{ $labels.device }} -c` for the link's BER and the switch port's errors; reseat or replace the cable.",
             "checks.md#port_errors_rising"),
        rule("FabricSymbolErrorsRising",
             "increase(fabric_port_pma_total{counter=\"symbol_error\"}[5m]) > 10",
             "5m", "warning",
             "Symbol errors rising on " + HOST + ": " + PORT,
             PORT + " on " + HOST + " counted {{ $value | humanize }} symbol errors in the last 5 minutes, above 120/h (the IBTA "
             "10^-12 bit error rate limit): a marginal cable or transceiver. Check `mlxlink -d {{ $labels.device }} -c` and replace the cable "
             "at the next maintenance window.",
             "checks.md#port_errors_rising"),
        rule("FabricLinkErrorsRising",
             "rate(fabric_port_pma_total{counter=\"port_rcv_errors\"}[5m]) > 10\n"
             "  or increase(fabric_port_pma_total{counter=~\"local_link_integrity_errors|excessive_buffer_overrun_errors\"}[15m]) > 0",
             "5m", "warning",
             "Link errors ({{ $labels.counter }}) rising on " + HOST + ": " + PORT,
             "{{ $labels.counter }} of " + PORT + " on " + HOST + " is rising ({{ $value | humanize }}): packets are damaged "
             "on the link. Check the cable and transceiver (`mlxlink`), the switch port's errors; replace the cable if it "
             "goes on.",
             "checks.md#port_errors_rising"),
        rule("FabricPhyErrorsRising",
             "increase(fabric_netdev_phy_errors_total[5m]) > 10",
             "5m", "warning",
             "{{ $labels.type }} errors rising on " + HOST + ": {{ $labels.netdev }}",
             "{{ $labels.netdev }} on " + HOST + " counted {{ $value | humanize }} {{ $labels.type }} errors in the last 5 minutes "
             "(above 120/h): cable, transceiver or switch port. fabric_netdev_phy_lane_errors_total shows whether one "
             "lane is to blame; `ethtool -S {{ $labels.netdev }} | grep phy` confirms.",
             "checks.md#port_errors_rising"),
        # a counter pinned at its maximum, whatever it counts (errors, congestion, traffic): blind until cleared
        finding("FabricCounterSaturated", "counter_saturated", "Counter pinned at its maximum", "checks.md",
                for_="2m"),
    ]),
])

FILES["transport"] = ("Transport failures from the drivers' hw_counters (fabric_port_transport_errors_total by type, the "
                      "same for every driver). One burst of failed QPs is what a killed or crashed job leaves on every "
                      "surviving peer: a transport_errors finding with its time, never a page. A page needs QPs failing "
                      "across several minutes.", [
    ("fabricd-transport", "transport", [
        rule("FabricTransportRetriesExceeded",
             "count_over_time((sum without (type, counter) (\n"
             "    increase(fabric_port_transport_errors_total{type=~\"retries_exceeded|rnr_retries_exceeded\"}[2m])\n"
             "  ) > 0)[10m:1m]) >= 5",
             "1m", "critical",
             "RDMA requests keep failing after their retries on " + HOST + ": " + PORT,
             PORT + " on " + HOST + " gave up on RDMA requests again and again over the last 10 minutes (transport "
             "retries exceeded, in {{ $value }} one-minute steps): queue pairs break again and again, so jobs on this port fail. Check the path's losses "
             "(FabricPortDown, link errors, pause storms, PFC) and the peers (`rdma statistic show link`); drain the node "
             "if it goes on.",
             "checks.md#transport_errors"),
        rule("FabricRetransmissionsHigh",
             "sum without (type, counter) (\n"
             "  rate(fabric_port_transport_errors_total{type=~\"ack_timeout|sequence_error|implied_nak\"}[5m])\n"
             ") > 1",
             "5m", "warning",
             "RDMA retransmissions on " + HOST + ": " + PORT,
             PORT + " on " + HOST + " times out or NAKs {{ $value | humanize }} requests/s: packets are lost on a fabric "
             "that should be lossless. Check PFC on the RDMA priority (FabricPfcMissing), drops and the link's errors.",
             "checks.md#transport_errors"),
        rule("FabricOutOfSequenceHigh",
             "sum without (type, counter) (\n"
             "  rate(fabric_port_transport_errors_total{type=\"out_of_sequence\"}[5m])\n"
             ") > 10",
             "5m", "warning",
             "Out-of-sequence RDMA packets on " + HOST + ": " + PORT,
             PORT + " on " + HOST + " receives {{ $value | humanize }} out-of-sequence packets/s: drops in the fabric (each "
             "costs a go-back-N retransmission) or adaptive routing without reordering support. Check PFC and drops on the "
             "path.",
             "checks.md#transport_errors"),
    ]),
])

FILES["congestion"] = ("Congestion: pause storms page; heavy congestion that the fabric handles (pause frames, ECN "
                       "marks, CNPs) does not: congestion counters are not errors.", [
    ("fabricd-congestion", "congestion", [
        rule("FabricPauseStorm",
             "increase(fabric_pfc_storm_events_total{level=\"error\"}[5m]) > 0",
             "0m", "critical",
             "PFC pause storm on " + HOST + ": {{ $labels.netdev }}",
             "The NIC's pause-storm watchdog fired on {{ $labels.netdev }} of " + HOST + ": it sent pause frames without end and can stall every switch upstream. Drain or isolate the "
             "host, then check its receive path (a hung driver or PCIe) before it rejoins.",
             "checks.md#pause_storm"),
        rule("FabricPauseFramesHigh",
             "rate(fabric_pfc_pause_frames_total{direction=\"tx\"}[5m]) > 2000",
             "5m", "warning",
             "{{ $labels.netdev }} sends many PFC pause frames on " + HOST,
             "{{ $labels.netdev }} on " + HOST + " has sent {{ $value | humanize }} PFC pause frames/s on priority "
             "{{ $labels.priority }} for 5 minutes (Guo et al. saw storms above 2000/s): it cannot drain what it receives. "
             "Check its receive discards and CPU/PCIe load; a storm watchdog event makes this critical.",
             "checks.md#pause_storm"),
        rule("FabricGlobalPauseFramesHigh",
             "rate(fabric_global_pause_frames_total{direction=\"tx\"}[5m]) > 2000",
             "5m", "warning",
             "{{ $labels.netdev }} sends many 802.3x pause frames on " + HOST,
             "{{ $labels.netdev }} on " + HOST + " has sent {{ $value | humanize }} 802.3x pause frames/s for 5 minutes, "
             "pausing every priority of its link peer. Use PFC instead of global pause on RDMA ports.",
             "checks.md#pause_storm"),
        rule("FabricPfcPauseTimeHigh",
             "rate(fabric_pfc_pause_seconds_total{direction=\"rx\"}[5m]) > 0.5",
             "5m", "warning",
             "{{ $labels.netdev }} held paused {{ $value | humanizePercentage }} of the time on " + HOST,
             "{{ $labels.netdev }} on " + HOST + " was held paused by its link peer for {{ $value | humanizePercentage }} of "
             "the time on priority {{ $labels.priority }} for 5 minutes: a victim of congestion or of a pause storm "
             "elsewhere. Look for FabricPauseStorm on other hosts and at the switch's pause counters.",
             "checks.md#pause_storm"),
        rule("FabricLosslessDrops",
             "increase(fabric_netdev_priority_buffer_discards_total[5m]) > 0\n"
             "  and on (job, instance, netdev, priority) fabric_pfc_enabled == 1",
             "5m", "warning",
             "Drops on lossless priority {{ $labels.priority }} on " + HOST + ": {{ $labels.netdev }}",
             "{{ $labels.netdev }} on " + HOST + " dropped {{ $value | humanize }} packets of priority {{ $labels.priority }} "
             "for lack of buffer in 5 minutes although PFC is on for it: check the PFC headroom and buffers "
             "(`mlnx_qos -i {{ $labels.netdev }}`) and that the switch honours pause frames.",
             "checks.md#pfc_missing"),
        rule("FabricCnpIgnored",
             "rate(fabric_roce_cnp_ignored_total[5m]) > 0",
             "10m", "warning",
             "CNPs ignored on " + HOST + ": " + PORT,
             PORT + " on " + HOST + " receives congestion notification packets it does not act on ({{ $value | humanize }}/s): "
             "the DCQCN reaction point is off for the RDMA priority. Enable it: MLNX_OFED's "
             "/sys/class/net/<netdev>/ecn/roce_rp/enable/<priority>, or the NIC's DCQCN settings (NVIDIA's tuning guide); "
             "the ecn_disabled finding names the netdev and priority.",
             "checks.md#ecn_disabled"),
        rule("FabricEcnMarksHigh",
             "rate(fabric_roce_ecn_marked_packets_total[5m])\n  / (rate(fabric_port_receive_packets_total[5m]) > 0) > 0.05",
             "5m", "info",
             "{{ $value | humanizePercentage }} of RoCE packets ECN-marked on " + HOST + ": " + PORT,
             "More than 5% of the packets " + PORT + " on " + HOST + " receives arrive ECN-marked: congestion control at "
             "work on a busy path (dashboards only; it is not an error).",
             "checks.md#ecn_disabled"),
    ]),
])


def agent_rules():
    return [
        rule("FabricdDown",
             "fabric:agent_up == 0",
             "15m", "warning",
             "fabricd on " + HOST + " is not scraped",
             "Prometheus cannot scrape fabricd on " + HOST + " ({{ $labels.instance }}) for 15 minutes, longer than a "
             "reboot: the host's fabric is unobserved. Check the host and the agent (`systemctl status fabricd` or "
             "`kubectl -n {{ with $labels.namespace }}{{ . }}{{ else }}<namespace>{{ end }} get pods -o wide`).",
             "operations.md#fabricddown"),
        rule("FabricdFleetUnobserved",
             "(count without (instance, node, pod, container, endpoint, service) (fabric:agent_up == 0)\n"
             "  / count without (instance, node, pod, container, endpoint, service) (fabric:agent_up)) > 0.1\n"
             "and count without (instance, node, pod, container, endpoint, service) (fabric:agent_up == 0) >= 2",
             "10m", "critical",
             "{{ $value | humanizePercentage }} of the fabricd agents of {{ $labels.job }} are down",
             "More than 10% of the fabricd agents of job {{ $labels.job }}{{ with $labels.cluster }} in cluster {{ . }}{{ end }} "
             "cannot be scraped for 10 minutes: the fabric is unobserved and its alerts are blind. Check what they share: "
             "the DaemonSet (`kubectl rollout status`), the image, the network path from Prometheus.",
             "operations.md#fabricdfleetunobserved"),
        rule("FabricdNotReady",
             "fabric_agent_ready == 0",
             "10m", "warning",
             "fabricd on " + HOST + " serves no current collection",
             "fabricd on " + HOST + " is up but has not finished a collection, or one hangs, for 10 minutes: its metrics "
             "are stale. Read the agent's log; a read of the host hangs (`collection.read_timeout`).",
             "operations.md#fabricdnotready"),
        rule("FabricdCollectorFailing",
             "fabric_collector_success == 0",
             "15m", "warning",
             "fabricd collector {{ $labels.collector }} fails on " + HOST,
             "The {{ $labels.collector }} collector of fabricd on " + HOST + " has failed as a whole for 15 minutes; its "
             "metrics are missing (the others are not affected). Its read errors are in `fabricd diagnose --format json` "
             "(collectors[].errors).",
             "operations.md#fabricdcollectorfailing"),
        rule("FabricdCollectionFailing",
             "increase(fabric_agent_collection_failures_total[15m]) > 0",
             "5m", "warning",
             "fabricd collections fail on " + HOST,
             "{{ $value | humanize }} collections of fabricd on " + HOST + " failed in the last 15 minutes; it serves its "
             "last good result. The agent's log has the reason.",
             "operations.md#fabricdcollectionfailing"),
        rule("FabricdScrapeSlow",
             "scrape_duration_seconds > 1 and on (job, instance) fabric:agent_up",
             "15m", "warning",
             "Scraping fabricd on " + HOST + " takes {{ $value | humanizeDuration }}",
             "A scrape of fabricd on " + HOST + " takes over 1 s for 15 minutes; a scrape serves a pre-built result, so the "
             "host or the agent's JVM is starved. Check the host's load and the agent's memory.",
             "operations.md#fabricdscrapeslow"),
        rule("FabricdCollectionStuck",
             "fabric_agent_collection_running_seconds > 60",
             "2m", "warning",
             "A fabricd collection hangs on " + HOST,
             "A collection of fabricd on " + HOST + " has been running for {{ $value | humanizeDuration }}: a read of the "
             "host hangs where read_timeout does not reach (a hung driver); the agent serves its last result and is not "
             "ready. Check `dmesg` for hung tasks.",
             "operations.md#fabricdcollectionstuck"),
        rule("FabricdConnectionFlood",
             "rate(fabric_agent_http_connections_shed_total[5m]) + rate(fabric_agent_http_connections_refused_total[5m]) > 1",
             "5m", "warning",
             "fabricd on " + HOST + " sheds HTTP connections",
             "fabricd on " + HOST + " closes {{ $value | humanize }} connections a second to stay within "
             "http.max_connections: someone holds or opens many connections to it (scrapes are still answered). Find the "
             "source with `ss -tn sport = :9530`.",
             "operations.md#fabricdconnectionflood"),
    ]


FILES["agent"] = ("The agent itself. fabric:agent_up is `up` of every target that ever exported fabric_agent_ready "
                  "(a fabricd agent, whatever its job is named), kept while the target stays in service discovery. "
                  "One agent down is a ticket after a reboot's length; a share of the fleet down is a page: the "
                  "fabric is unobserved.", [
    ("fabricd-agent.records", None, [
        {"record": "fabric:agent_up",
         "expr": "up and on (job, instance) (fabric_agent_ready or fabric:agent_up)"},
    ]),
    ("fabricd-agent", "agent", agent_rules()),
])

FILES["bandwidth"] = ("Bandwidth tests (docs/bandwidth.md): a link that delivered less than 80 % of what it can carry "
                      "in its last test of the last day.", [
    ("fabricd-bandwidth", "bandwidth", [
        rule("FabricBandwidthLow",
             "fabric_bandwidth_ratio < 0.8\n"
             "  and on (job, instance, peer, device, direction) (time() - fabric_bandwidth_last_test_timestamp_seconds < 86400)",
             "1m", "warning",
             "{{ $labels.device }} on " + HOST + " delivered {{ $value | humanizePercentage }} of its ceiling to {{ $labels.peer }}",
             "The last RDMA WRITE bandwidth test between " + HOST + " ({{ $labels.device }}) and {{ $labels.peer }} "
             "({{ $labels.direction }}) moved {{ $value | humanizePercentage }} of what the link and both NICs' PCIe can "
             "carry. Repeat it with `fabricd bw` or ib_write_bw on the same ports; then check the link's errors and pauses, "
             "PFC and ECN, the NICs' PCIe link and NUMA placement.",
             "checks.md#bandwidth_low"),
    ]),
])

DRIFT_GROUP = "cluster, job, hca_type, key"
FILES["drift"] = ("Fleet drift (docs/alerts.md, \"Fleet drift\"): fabric_config_info carries the configuration that must "
                  "match across hosts with the same cards (hca_type); the recording rules find the share of hosts "
                  "holding each value, and FabricConfigDrift names a host whose value a clear majority of its group does "
                  "not share. A ticket, not a page: a drifted host still works, but differently from its peers.", [
    ("fabricd-drift.records", None, [
        {"record": "fabric:config_value_hosts:count",
         "expr": f"count by ({DRIFT_GROUP}, value) (fabric_config_info)"},
        {"record": "fabric:config_key_hosts:count",
         "expr": f"count by ({DRIFT_GROUP}) (count by ({DRIFT_GROUP}, instance) (fabric_config_info))"},
        {"record": "fabric:config_value_share:ratio",
         "expr": f"fabric:config_value_hosts:count\n  / on ({DRIFT_GROUP}) group_left () fabric:config_key_hosts:count"},
    ]),
    ("fabricd-drift", "drift", [
        rule("FabricConfigDrift",
             f"fabric_config_info\n"
             f"  * on ({DRIFT_GROUP}, value) group_left () (fabric:config_value_share:ratio < 0.5)\n"
             f"and on ({DRIFT_GROUP}) (max by ({DRIFT_GROUP}) (fabric:config_value_share:ratio) > 0.5)\n"
             f"and on ({DRIFT_GROUP}) (fabric:config_key_hosts:count >= 3)",
             "30m", "warning",
             HOST + " differs from its fleet: {{ $labels.key }} {{ $labels.value }}",
             HOST + " has {{ $labels.key }} {{ $labels.value }}{{ with $labels.hca_type }} on its {{ . }} cards{{ end }}, held by "
             "{{ $value | humanizePercentage }} of the job's hosts"
             "{{ with printf `topk(1, fabric:config_value_share:ratio{cluster=%q,job=%q,hca_type=%q,key=%q})` $labels.cluster "
             "$labels.job $labels.hca_type $labels.key | query }}{{ with . | first }}, while {{ .Value | humanizePercentage }} have "
             "{{ .Labels.value }}{{ end }}{{ end }}. Bring it in line (or, if it is the new standard, the others): firmware with "
             "`mlxfwmanager`, MTU, PFC, trust and ECN with the fabric's network configuration, Max Read Request with setpci, "
             "GPUDirect by loading nvidia-peermem. The Configuration audit dashboard shows every host's values.",
             "alerts.md#fleet-drift"),
    ]),
])

PROBE_KEEP = "job, namespace, cluster"
FILES["probes"] = ("Pingmesh alerts (docs/probes.md). Recording rules aggregate per peer (over every prober) and per "
                   "peer rack, so a bad ToR is one rack alert and the per-peer alerts of that rack stay quiet.", [
    ("fabricd-probes.records", None, [
        {"record": "fabric:probe_loss_ratio:rate5m",
         "expr": "rate(fabric_probe_lost_total[5m])\n  / (rate(fabric_probe_sent_total[5m]) > 0)"},
        {"record": "fabric:probe_loss_ratio_by_peer:rate5m",
         "expr": f"sum by (peer, peer_rack, transport, size, {PROBE_KEEP}) (rate(fabric_probe_lost_total[5m]))\n"
                 f"  / (sum by (peer, peer_rack, transport, size, {PROBE_KEEP}) (rate(fabric_probe_sent_total[5m])) > 0)"},
        {"record": "fabric:probe_loss_ratio_by_rack:rate5m",
         "expr": f"sum by (peer_rack, transport, size, {PROBE_KEEP}) (rate(fabric_probe_lost_total[5m]))\n"
                 f"  / (sum by (peer_rack, transport, size, {PROBE_KEEP}) (rate(fabric_probe_sent_total[5m])) > 0)"},
        {"record": "fabric:probe_lossy_peers:count",
         "expr": f"count by (peer_rack, transport, size, {PROBE_KEEP}) (fabric:probe_loss_ratio_by_peer:rate5m > 0.02)"},
        {"record": "fabric:probe_rtt_recent_p99_by_peer:max",
         # per peer: the worst of the probers' recent p99 (quantiles do not add up; the worst prober's
         # view is what a job on that peer sees at worst)
         "expr": f"max by (peer, peer_rack, transport, size, {PROBE_KEEP}) (fabric_probe_rtt_recent_seconds{{quantile=\"0.99\"}})"},
        {"record": "fabric:probe_rtt_seconds_p99_by_rack:rate5m",
         "expr": f"histogram_quantile(0.99, sum by (peer_rack, transport, size, le, {PROBE_KEEP}) "
                 "(rate(fabric_probe_rtt_seconds_bucket[5m])))"},
        {"record": "fabric:probe_slow_peers:count",
         "expr": f"count by (peer_rack, transport, size, {PROBE_KEEP}) (fabric:probe_rtt_recent_p99_by_peer:max > 0.005)"},
    ]),
    ("fabricd-probes", "probes", [
        rule("FabricRackProbeLoss",
             "fabric:probe_lossy_peers:count >= 3",
             "5m", "critical",
             "{{ $value }} hosts of rack {{ $labels.peer_rack }} lose {{ $labels.transport }} probes",
             "{{ $value }} hosts in rack {{ $labels.peer_rack }} lose more than 2% of their {{ $labels.size }} B "
             "{{ $labels.transport }} probes: jobs across this rack stall. Suspect the rack's ToR switch or its uplinks "
             "rather than the hosts: check the switch's port errors and drops.",
             "checks.md#probe_loss"),
        rule("FabricPeerProbeLoss",
             "fabric:probe_loss_ratio_by_peer:rate5m > 0.02\n"
             f"  unless on (peer_rack, transport, size, {PROBE_KEEP}) (fabric:probe_lossy_peers:count >= 3)",
             "5m", "warning",
             "{{ $labels.peer }} loses {{ $value | humanizePercentage }} of {{ $labels.transport }} probes ({{ $labels.size }} B)",
             "Agents probing {{ $labels.peer }}{{ with $labels.peer_rack }} (rack {{ . }}){{ end }} lose "
             "{{ $value | humanizePercentage }} of their {{ $labels.size }} B {{ $labels.transport }} probes: check that "
             "host's links and errors. Loss at the large size only points to an MTU mismatch on the path.",
             "checks.md#probe_loss"),
        # The recent p99 is of each peer's last 256 probes (4m16s at the defaults): held 6 minutes, one
        # slow round has left it before the hold ends, and a lasting one fires within 3 + 4m16s + 6 minutes
        rule("FabricRackProbeLatency",
             "fabric:probe_slow_peers:count >= 3",
             "6m", "warning",
             "{{ $value }} hosts of rack {{ $labels.peer_rack }} answer {{ $labels.transport }} probes slowly",
             "{{ $value }} hosts in rack {{ $labels.peer_rack }} have had a p99 probe RTT above 5 ms ({{ $labels.size }} B, "
             "{{ $labels.transport }}; of their last 256 probes, some 4 minutes) for 6 minutes: congestion or PFC pauses at "
             "the rack's ToR. Check the switch's queues and pause counters.",
             "checks.md#probe_latency"),
        rule("FabricPeerProbeLatency",
             "fabric:probe_rtt_recent_p99_by_peer:max > 0.005\n"
             f"  unless on (peer_rack, transport, size, {PROBE_KEEP}) (fabric:probe_slow_peers:count >= 3)",
             "6m", "warning",
             "{{ $labels.peer }} p99 probe RTT {{ $value | humanizeDuration }} ({{ $labels.transport }}, {{ $labels.size }} B)",
             "The p99 round trip of the last 256 {{ $labels.size }} B {{ $labels.transport }} probes to {{ $labels.peer }} "
             "(some 4 minutes of them) is {{ $value | humanizeDuration }}, and has been above 5 ms for 6 minutes: that host is "
             "congested or paused. Check its pause counters and load.",
             "checks.md#probe_latency"),
    ]),
    # A host slow to answer (docs/alerts.md, "A host slow to answer"): the 90th percentile of how long
    # its own responder held the probes it answered over 5 minutes (a starved CPU holds most of them,
    # a host that stalls now and then one in ten or more; one slow sample or a pause of seconds stays
    # under a tenth of the minutes' thousands), above 1 ms (a fleet of fast hosts is never told apart
    # by microseconds) and 10 x the fleet's median of the same (a fleet slow throughout is no host's
    # fault); held 6 minutes, longer than the window, so that one stall has left it before the hold
    # ends. The records come first in the group, so the alert reads them fresh
    ("fabricd-probe-hosts", "probes", [
        {"record": "fabric:probe_responder_hold_p90:rate5m",
         "expr": "histogram_quantile(0.9, rate(fabric_probe_responder_hold_seconds_bucket[5m]))\n"
                 "  and rate(fabric_probe_responder_hold_seconds_count[5m]) >= 0.1"},
        {"record": "fabric:probe_responder_hold_p90:fleet_median",
         "expr": f"quantile by ({PROBE_KEEP}) (0.5, fabric:probe_responder_hold_p90:rate5m)"},
        rule("FabricHostSlowToAnswer",
             "fabric:probe_responder_hold_p90:rate5m > 0.001\n"
             f"  and fabric:probe_responder_hold_p90:rate5m > on ({PROBE_KEEP}) group_left () 10 * fabric:probe_responder_hold_p90:fleet_median",
             "6m", "warning",
             HOST + " is slow to answer: it holds one probe in ten {{ $value | humanizeDuration }} or longer",
             "fabricd's probe responder on " + HOST + " held one in ten of the probes it answered for {{ $value | humanizeDuration }} "
             "or longer (their 90th percentile over 5 minutes), over 1 ms and 10 times the fleet's, for 6 minutes: its CPU is starved "
             "or it stalls, and every collective it joins waits for it. Check its load and CPU throttling (top, mpstat), dmesg for "
             "soft lockups and hung tasks, and the fabricd agent's own CPU limit; drain it while a job suffers.",
             "alerts.md#a-host-slow-to-answer"),
    ]),
])


# The fabric's switches (docs/alerts.md, "A suspect switch"). fabric_topology_info names each host's
# leaf and spine; a probe series' peer_rack is the peer's leaf where the topology knows it. A pair is
# one prober and one peer; it crosses its prober's leaf and its peer's, and the spines of both when the
# two leaves differ (a pair within one leaf never reaches a spine). Pairs of a host or peer whose
# leaf is unknown are left out, so a fabric without a topology has no series here.
K = PROBE_KEEP
LEAVES = "max by (job, instance, leaf, spine) (fabric_topology_info{leaf!=\"\"})"
PEER_LEAVES = ('label_replace(label_replace(fabric:topology_leaf_spine:info, "peer_leaf", "$1", "leaf", "(.*)"), '
               '"peer_spine", "$1", "spine", "(.*)")')


def placed(expr):
    """A per-pair expression with the prober's leaf and spine and the peer's (peer_rack, when a known leaf)."""
    return (f'label_replace(\n  {expr}\n    * on (job, instance) group_left (leaf, spine) {LEAVES},\n'
            f'  "peer_leaf", "$1", "peer_rack", "(.*)"\n)\n'
            f'* on (peer_leaf, {K}) group_left (peer_spine)\n  {PEER_LEAVES}\n'
            # a peer whose agent is down (a reboot) is no pair: its probes are lost whatever its switch
            'unless on (peer, job) label_replace(up == 0, "peer", "$1", "instance", "(.*)")')


def tier(expr, name, label):
    """expr with switch = its label `label` and tier = name."""
    return f'label_replace(label_replace({expr}, "switch", "$1", "{label}", "(.*)"), "tier", "{name}", "", "")'


def across(src, label):
    """The pairs of src between two leaves whose `label` (spine or peer_spine) is known."""
    return f'({src}{{{label}!=""}} unless label_replace({src}, "leaf", "$1", "peer_leaf", "(.*)"))'


def crossing(src, ends=("leaf", "peer_leaf"), spines=("spine", "peer_spine")):
    """Each pair of src once per switch it crosses: its leaves (one when both ends share it) and the
    spines of a pair between two leaves; labels switch and tier (leaf, spine)."""
    parts = [tier(src, "leaf", e) for e in ends] + [tier(across(src, s), "spine", s) for s in spines]
    return "(\n    " + "\n  or ".join(parts) + "\n  )"


def hurt_hosts(role, host, end, spine):
    """Hosts under a switch in one role (prober: its instance; peer), hurt through it with two or more counterparts."""
    return (f'label_replace(count by (switch, tier, {K}) (\n    sum by (switch, tier, {host}, {K}) '
            f'{crossing("fabric:probe_pair_hurt:bool", (end,), (spine,))} >= 2\n  ), "role", "{role}", "", "")')


def switch_suspect(severity, share):
    return rule(
        "FabricSwitchSuspect",
        # a spine above a suspect leaf is that leaf's uplinks: the leaf's alert names them
        f"fabric:probe_switch_suspect:ratio > {share}\n"
        f"  unless on (switch, {K}) label_replace(\n"
        f"    fabric:probe_switch_suspect:ratio{{tier=\"leaf\"}}\n"
        f"      * on (switch, {K}) group_left (spine) label_replace(fabric:topology_leaf_spine:info, \"switch\", \"$1\", \"leaf\", \"(.*)\"),\n"
        f"    \"switch\", \"$1\", \"spine\", \"(.*)\"\n  )",
        "7m", severity,
        "Switch {{ $labels.switch }} ({{ $labels.tier }}) is suspect: {{ $value | humanizePercentage }} of the probe pairs "
        "through it are hurt",
        "{{ $value | humanizePercentage }} of the probed host pairs that cross {{ $labels.tier }} switch {{ $labels.switch }} "
        "have lost more than 2% of their probes or had a p99 round trip above 5 ms for 7 minutes"
        "{{ with printf `fabric:probe_hurt_hosts_by_switch:count{switch=%q, job=%q}` $labels.switch $labels.job | query }}"
        "{{ with . | first }}, on {{ .Value }} of the hosts under it{{ end }}{{ end }}"
        ", while the pairs that do not cross it are healthy: the switch or its links are the common element. "
        "Open the Pingmesh dashboard's leaf x leaf matrix, then find the switch's ports: fabric_port_neighbor_info"
        "{switch=\"{{ $labels.switch }}\"} names the host port on each of them; check their error and drop counters "
        "on the switch, and drain its hosts while jobs suffer.",
        "alerts.md#a-suspect-switch")


FABRIC_RECORDS = [
    # each leaf's spine: the one most of its hosts name (empty when none knows it); value 1
    {"record": "fabric:topology_leaf_spine:info",
     "expr": f'count by (leaf, spine, {K}) (topk by (leaf, {K}) (1, count by (leaf, spine, {K}) (fabric_topology_info{{leaf!=""}})))'},
    # per pair (prober x peer), the worst of its transports and sizes
    {"record": "fabric:probe_loss_ratio_by_pair:rate5m",
     "expr": placed("max without (transport, size) (rate(fabric_probe_lost_total[5m]) / (rate(fabric_probe_sent_total[5m]) > 0))")},
    {"record": "fabric:probe_rtt_recent_p99_by_pair:max",
     "expr": placed('max without (transport, size, quantile) (fabric_probe_rtt_recent_seconds{quantile="0.99"})')},
    # 1 when the pair loses more than 2 % of its probes or its p99 is above 5 ms (the probe alerts' limits), else 0
    {"record": "fabric:probe_pair_hurt:bool",
     "expr": 'max without (why) (\n'
             '  label_replace(fabric:probe_loss_ratio_by_pair:rate5m > bool 0.02, "why", "loss", "", "")\n'
             '  or label_replace(fabric:probe_rtt_recent_p99_by_pair:max > bool 0.005, "why", "latency", "", "")\n)'},
    # leaf x peer leaf: the matrix of the Pingmesh dashboard
    {"record": "fabric:probe_loss_ratio_by_leaf_pair:avg",
     "expr": f"avg by (leaf, peer_leaf, {K}) (fabric:probe_loss_ratio_by_pair:rate5m)"},
    {"record": "fabric:probe_rtt_recent_p99_by_leaf_pair:avg",
     "expr": f"avg by (leaf, peer_leaf, {K}) (fabric:probe_rtt_recent_p99_by_pair:max)"},
    {"record": "fabric:probe_pairs_by_leaf_pair:count",
     "expr": f"count by (leaf, peer_leaf, {K}) (fabric:probe_pair_hurt:bool)"},
    {"record": "fabric:probe_hurt_pairs_by_leaf_pair:count",
     "expr": f"sum by (leaf, peer_leaf, {K}) (fabric:probe_pair_hurt:bool)"},
    # per switch (leaf or spine): the pairs that cross it
    {"record": "fabric:probe_pairs_by_switch:count",
     "expr": f"count by (switch, tier, {K}) {crossing('fabric:probe_pair_hurt:bool')}"},
    {"record": "fabric:probe_hurt_pairs_by_switch:count",
     "expr": f"sum by (switch, tier, {K}) {crossing('fabric:probe_pair_hurt:bool')}"},
    {"record": "fabric:probe_hurt_pair_share_by_switch:ratio",
     "expr": "fabric:probe_hurt_pairs_by_switch:count / fabric:probe_pairs_by_switch:count"},
    {"record": "fabric:probe_loss_ratio_by_switch:avg",
     "expr": f"avg by (switch, tier, {K}) {crossing('fabric:probe_loss_ratio_by_pair:rate5m')}"},
    {"record": "fabric:probe_rtt_recent_p99_by_switch:avg",
     "expr": f"avg by (switch, tier, {K}) {crossing('fabric:probe_rtt_recent_p99_by_pair:max')}"},
    # hosts under the switch whose pairs through it are hurt with two or more counterparts, as prober
    # or as peer: one bad host hurts one pair of each of its neighbours, so they do not count
    {"record": "fabric:probe_hurt_hosts_by_switch:count",
     "expr": f"max without (role) (\n  {hurt_hosts('prober', 'instance', 'leaf', 'spine')}\n"
             f"  or {hurt_hosts('peer', 'peer', 'peer_leaf', 'peer_spine')}\n)"},
    {"record": "fabric:probe_pairs:count", "expr": f"count by ({K}) (fabric:probe_pair_hurt:bool)"},
    {"record": "fabric:probe_hurt_pairs:count", "expr": f"sum by ({K}) (fabric:probe_pair_hurt:bool)"},
    # the share of hurt pairs among those that do not cross the switch (none when every pair crosses it)
    {"record": "fabric:probe_hurt_pair_share_outside_switch:ratio",
     "expr": f"(fabric:probe_hurt_pairs:count - on ({K}) group_right () fabric:probe_hurt_pairs_by_switch:count)\n"
             f"  / (fabric:probe_pairs:count - on ({K}) group_right () fabric:probe_pairs_by_switch:count > 0)"},
    # the share of hurt pairs of a switch that two or more of its hosts are hurt through, above a fifth,
    # while fewer than 5 % of the pairs that do not cross it are hurt
    {"record": "fabric:probe_switch_suspect:ratio",
     "expr": f"fabric:probe_hurt_pair_share_by_switch:ratio > 0.2\n"
             f"  and on (switch, tier, {K}) fabric:probe_hurt_hosts_by_switch:count >= 2\n"
             f"  and on (switch, tier, {K}) fabric:probe_hurt_pair_share_outside_switch:ratio < 0.05"},
]

FILES["fabric"] = ("The fabric's switches (docs/alerts.md, \"A suspect switch\"): probe pairs placed on the fabric's "
                   "topology (fabric_topology_info; a probe's peer_rack is its peer's leaf), counted per leaf x peer leaf "
                   "and per switch they cross. FabricSwitchSuspect names a leaf or spine when a share of the pairs through "
                   "it is hurt on two or more of its hosts while the pairs that do not cross it are healthy: warning above "
                   "a fifth, critical above half. Nothing without a topology.", [
    # the records first in the group, so that the alerts read them fresh
    ("fabricd-fabric", "fabric", FABRIC_RECORDS + [switch_suspect("warning", "0.2"), switch_suspect("critical", "0.5")]),
])


def q(s):
    """A YAML double-quoted scalar (JSON's escaping is valid YAML)."""
    import json
    return json.dumps(s, ensure_ascii=False)


def block(s, indent):
    pad = " " * indent
    return "|\n" + "\n".join(pad + line for line in s.split("\n"))


def render(name, header, groups):
    out = []
    for line in header_lines(header):
        out.append("# " + line if line else "#")
    out.append("# Written by tools/alerts.py: edit it there, then run `python3 tools/alerts.py`.")
    out.append("groups:")
    for gname, category, rules in groups:
        out.append(f"  - name: {gname}")
        out.append("    rules:")
        for r in rules:
            if "record" in r:
                out.append(f"      - record: {r['record']}")
                out.append("        expr: " + (block(r["expr"], 10) if "\n" in r["expr"] else q(r["expr"])))
                continue
            out.append(f"      - alert: {r['alert']}")
            out.append("        expr: " + (block(r["expr"], 10) if "\n" in r["expr"] else q(r["expr"])))
            out.append(f"        for: {r['for']}")
            out.append("        labels:")
            for k, v in r["labels"].items():
                out.append(f"          {k}: {v}")
            out.append(f"          category: {category}")
            out.append("        annotations:")
            out.append("          summary: " + q(r["summary"]))
            out.append("          description: " + q(r["description"]))
            out.append("          runbook_url: " + RUNBOOK_BASE + r["runbook"])
    return "\n".join(out) + "\n"


def header_lines(text, width=100):
    words = text.split()
    lines, cur = [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width - 2:
            lines.append(cur)
            cur = w
        else:
            cur = (cur + " " + w).strip()
    if cur:
        lines.append(cur)
    return lines


def main():
    import argparse
    parser = argparse.ArgumentParser(prog="tools/alerts.py", description="Writes fabricd's Prometheus rule files "
                                     "(*.rules.yaml) from the rule lists of tools/alerts.py.")
    # an argument starting with '-' is an option (--help) or a mistake, never a folder to write into
    parser.add_argument("out_dir", nargs="?", metavar="OUT_DIR", help="write the rule files there only; default: alerts/ and "
                        "the Helm chart's copy, deploy/helm/fabricd/files/alerts (which `helm package` needs inside the chart; "
                        "ChartFilesTest checks the two are identical)")
    args = parser.parse_args(sys.argv[1:])
    if args.out_dir is not None and args.out_dir.startswith("-"):
        parser.error("OUT_DIR %r starts with '-': not a folder to write the rule files into (./%s if you mean it)" % (args.out_dir, args.out_dir))
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    out_dirs = [args.out_dir] if args.out_dir else [os.path.join(here, "alerts"), os.path.join(here, "deploy", "helm", "fabricd", "files", "alerts")]
    for out_dir in out_dirs:
        os.makedirs(out_dir, exist_ok=True)
        for name, (header, groups) in FILES.items():
            with open(os.path.join(out_dir, f"{name}.rules.yaml"), "w", encoding="utf-8") as f:
                f.write(render(name, header, groups))


if __name__ == "__main__":
    main()
