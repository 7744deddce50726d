#!/usr/bin/env python3
"""Writes fabricd's Grafana dashboards (dashboards/grafana/*.json) from the compact panel lists below.

Edit the lists here, then run `python3 tools/dashboards.py`; the JSON files are its output and are
committed. Every expression uses only families fabricd exports (docs/metrics.md), the recording
rules of alerts/ and the template variables $cluster, $rack, $host (hosts by name: fabric_host_info's
hostname, the Kubernetes node's name under the chart), the hidden $instance (the selected hosts'
scrape targets) and $__rate_interval; PrometheusIT evaluates each one against a real Prometheus
scraping demo and fixture agents.

What an on-call engineer reads at 3 a.m.: hosts by name, never IP:port; the host drill-down opens on
one host, never "All"; every panel has a unit; link rates and traffic in bits per second.
"""
import json
import os
import sys
from urllib.parse import quote

S = 'cluster=~"$cluster", instance=~"$instance"'
R = "$__rate_interval"
# per-host series named by the host: its hostname from fabric_host_info
NAMED = " * on (instance) group_left (hostname) max by (instance, hostname) (fabric_host_info)"


def variables(single_host=False):
    """$cluster and $rack (All by default; with or without a cluster label), $host by name (one host on
    the drill-down, All elsewhere), and the hidden $instance: the selected hosts' targets."""
    ds = {"type": "prometheus", "uid": "${datasource}"}
    host = {"name": "host", "label": "Host", "type": "query", "datasource": ds,
            "query": {"query": 'label_values(fabric_host_info{cluster=~"$cluster", rack=~"$rack"}, hostname)', "refId": "host"},
            "definition": 'label_values(fabric_host_info{cluster=~"$cluster", rack=~"$rack"}, hostname)', "refresh": 2,
            "sort": 1}
    if single_host:
        host.update({"includeAll": False, "multi": False, "current": {}})
    else:
        # no allValue: "All" expands to the hosts of the selected racks
        host.update({"includeAll": True, "multi": True, "current": {"text": "All", "value": "$__all"}})
    return [
        {"name": "datasource", "label": "Data source", "type": "datasource", "query": "prometheus", "current": {}},
        {"name": "cluster", "label": "Cluster", "type": "query", "datasource": ds,
         "query": {"query": "label_values(fabric_host_info, cluster)", "refId": "cluster"},
         "definition": "label_values(fabric_host_info, cluster)", "includeAll": True, "allValue": ".*",
         "multi": True, "refresh": 2, "current": {"text": "All", "value": "$__all"}},
        {"name": "rack", "label": "Rack", "type": "query", "datasource": ds,
         "query": {"query": 'label_values(fabric_host_info{cluster=~"$cluster"}, rack)', "refId": "rack"},
         "definition": 'label_values(fabric_host_info{cluster=~"$cluster"}, rack)', "includeAll": True,
         "allValue": ".*", "multi": True, "refresh": 2, "current": {"text": "All", "value": "$__all"}},
        host,
        {"name": "instance", "label": "Targets", "type": "query", "datasource": ds, "hide": 2,
         "query": {"query": 'label_values(fabric_host_info{cluster=~"$cluster", rack=~"$rack", hostname=~"$host"}, instance)',
                   "refId": "instance"},
         "definition": 'label_values(fabric_host_info{cluster=~"$cluster", rack=~"$rack", hostname=~"$host"}, instance)',
         "includeAll": True, "multi": True, "refresh": 2, "current": {"text": "All", "value": "$__all"}},
    ]


def panel(pid, title, kind, targets, x, y, w, h, unit="short", description=None, instant=False, table=False, matrix=None,
          stack=False, merge=None):
    ds = {"type": "prometheus", "uid": "${datasource}"}
    p = {"id": pid, "title": title, "type": kind, "datasource": ds, "gridPos": {"x": x, "y": y, "w": w, "h": h},
         "targets": [], "fieldConfig": {"defaults": {}, "overrides": []}, "options": {}}
    if description:
        p["description"] = description
    if unit:
        p["fieldConfig"]["defaults"]["unit"] = unit
    if stack:
        p["fieldConfig"]["defaults"]["custom"] = {"stacking": {"mode": "normal"}}
    for i, (expr, legend) in enumerate(targets):
        t = {"refId": chr(65 + i), "datasource": ds, "expr": expr, "legendFormat": legend or "__auto"}
        if instant or table:
            t["instant"] = True
            t["range"] = False
        if table:
            t["format"] = "table"
        p["targets"].append(t)
    if table:
        p["transformations"] = [{"id": "organize", "options": {"excludeByName": {"Time": True, "__name__": True}}}]
    if merge:
        # several instant queries as one table: a row per label set, a column per query (named by merge)
        p["transformations"] = [{"id": "merge", "options": {}},
                                {"id": "organize", "options": {"excludeByName": {"Time": True, "__name__": True, "job": True},
                                                               "renameByName": merge}}]
    if matrix:
        # a heatmap as a table: rows x columns, each cell coloured by its value
        row, col = matrix
        p["transformations"] = [{"id": "groupingToMatrix",
                                 "options": {"rowField": row, "columnField": col, "valueField": "Value"}}]
        p["fieldConfig"]["defaults"]["custom"] = {"cellOptions": {"type": "color-background"}, "align": "center"}
        p["fieldConfig"]["defaults"]["color"] = {"mode": "continuous-GrYlRd"}
    return p


def dashboard(uid, title, description, panels, single_host=False):
    return {
        "uid": uid, "title": title, "description": description, "tags": ["fabricd", "rdma"],
        "schemaVersion": 39, "version": 1, "editable": True, "graphTooltip": 1, "refresh": "30s",
        "time": {"from": "now-6h", "to": "now"}, "timezone": "",
        "templating": {"list": variables(single_host)}, "annotations": {"list": []},
        "links": [{"title": "fabricd", "type": "dashboards", "tags": ["fabricd"], "asDropdown": True}],
        "panels": panels,
    }


def fleet():
    return dashboard("fabricd-fleet", "fabricd / Fleet overview",
                     "RDMA ports, missing hardware, findings, traffic and congestion across the selected hosts.", [
        panel(1, "Hosts", "stat", [(f"count(fabric_host_info{{{S}}})", "hosts")], 0, 0, 4, 4),
        panel(2, "RDMA ports up", "stat", [(f"sum(fabric_port_up{{{S}}})", "up")], 4, 0, 4, 4),
        panel(3, "Expected ports down", "stat",
              [(f'count(fabric_finding{{{S}, check="link_down", severity=~"critical|warning"}}) or vector(0)', "down")], 8, 0, 4, 4,
              description="Ports that must be up and are not (the link_down check: the inventory saw them up, or the "
                          "configuration or a same-type card says so); unused and uncabled ports are not counted."),
        panel(4, "Open findings by severity", "stat",
              [(f"count by (severity) (fabric_finding{{{S}}})", "{{severity}}")], 12, 0, 4, 4),
        panel(5, "Expected hardware missing", "stat",
              [(f"count(fabric_inventory_present{{{S}}} == 0) or vector(0)", "missing")], 16, 0, 4, 4,
              description="Devices, ports and GPU/NIC functions of the hosts' inventories that are gone (hardware_missing)."),
        panel(6, "Collectors failing", "stat",
              [(f"count(fabric_collector_success{{{S}}} == 0) or vector(0)", "failing")], 20, 0, 4, 4),
        panel(7, "Findings by check", "bargauge",
              [(f"count by (check) (fabric_finding{{{S}}})", "{{check}}")], 0, 4, 12, 8, instant=True),
        panel(8, "RDMA traffic (transmit, per host)", "timeseries",
              [(f"sum by (instance) (rate(fabric_port_transmit_bytes_total{{{S}}}[{R}]) * 8){NAMED}", "{{hostname}}")],
              12, 4, 12, 8, unit="bps"),
        panel(9, "Missing hardware", "table",
              [(f"(fabric_inventory_present{{{S}}} == 0){NAMED}", "")], 0, 12, 12, 8, table=True, unit="none",
              description="What each host's inventory expects and the host no longer has: an RDMA device whose driver "
                          "unbound, a port, a GPU or NIC off the bus (docs/alerts.md, The inventory). Empty is good."),
        panel(10, "PFC pause time received (share of time paused)", "timeseries",
              [(f'sum by (instance, netdev, priority) (rate(fabric_pfc_pause_seconds_total{{{S}, direction="rx"}}[{R}])){NAMED}',
                "{{hostname}} {{netdev}} prio {{priority}}")], 12, 12, 12, 8, unit="percentunit"),
        panel(11, "PFC pause frames sent", "timeseries",
              [(f'sum by (instance, netdev, priority) (rate(fabric_pfc_pause_frames_total{{{S}, direction="tx"}}[{R}])){NAMED}',
                "{{hostname}} {{netdev}} prio {{priority}}")], 0, 20, 12, 8, unit="pps"),
        panel(12, "ECN-marked RoCE packets", "timeseries",
              [(f"sum by (instance) (rate(fabric_roce_ecn_marked_packets_total{{{S}}}[{R}])){NAMED}", "{{hostname}}")],
              12, 20, 12, 8, unit="pps"),
        panel(13, "CNPs sent, handled, ignored", "timeseries", [
            (f"sum(rate(fabric_roce_cnp_sent_total{{{S}}}[{R}]))", "sent"),
            (f"sum(rate(fabric_roce_cnp_handled_total{{{S}}}[{R}]))", "handled"),
            (f"sum(rate(fabric_roce_cnp_ignored_total{{{S}}}[{R}]))", "ignored")], 0, 28, 12, 8, unit="pps"),
        panel(14, "Link flaps (down events, 1 h)", "timeseries", [
            (f'sum by (instance) (increase(fabric_port_pma_total{{{S}, counter="link_downed"}}[1h])){NAMED}', "{{hostname}} InfiniBand"),
            (f"sum by (instance) (increase(fabric_netdev_link_down_events_total{{{S}}}[1h])){NAMED}", "{{hostname}} RoCE")],
              12, 28, 12, 8, unit="short",
              description="Links that went down between scrapes: InfiniBand link_downed and a RoCE netdev's link down events."),
    ])


ERR = "symbol_error|link_error_recovery|link_downed|port_rcv_errors|port_rcv_remote_physical_errors|port_xmit_discards|local_link_integrity_errors|excessive_buffer_overrun_errors"


def host():
    return dashboard("fabricd-host", "fabricd / Host drill-down",
                     "One host's RDMA ports, expected hardware, errors, PFC per priority, GPU x NIC paths, PCIe links and how "
                     "long it takes to answer probes.", [
        panel(1, "RDMA ports", "table", [(f"fabric_port_info{{{S}}}", "")], 0, 0, 24, 6, table=True, unit="none"),
        panel(2, "Port up", "state-timeline", [(f"fabric_port_up{{{S}}}", "{{device}}/{{port}}")],
              0, 6, 12, 6, unit="bool_on_off"),
        panel(3, "Port rate", "stat", [(f"fabric_port_rate_bytes_per_second{{{S}}} * 8", "{{device}}/{{port}}")],
              12, 6, 12, 6, unit="bps"),
        panel(4, "Traffic per port", "timeseries", [
            (f"rate(fabric_port_transmit_bytes_total{{{S}}}[{R}]) * 8", "{{device}}/{{port}} tx"),
            (f"rate(fabric_port_receive_bytes_total{{{S}}}[{R}]) * 8", "{{device}}/{{port}} rx")], 0, 12, 12, 8, unit="bps"),
        panel(5, "Port error counters", "timeseries",
              [(f'rate(fabric_port_pma_total{{{S}, counter=~"{ERR}"}}[{R}])', "{{device}}/{{port}} {{counter}}")],
              12, 12, 12, 8, unit="cps"),
        panel(6, "Transport errors by type", "timeseries",
              [(f"sum by (device, port, type) (rate(fabric_port_transport_errors_total{{{S}}}[{R}]))",
                "{{device}}/{{port}} {{type}}")], 0, 20, 12, 8, unit="cps",
              description="From the driver's hw_counters/ (mlx5, rxe, bnxt_re, irdma), by type: retries_exceeded, ack_timeout, sequence_error, out_of_sequence, ... (docs/checks.md#transport_errors)."),
        panel(7, "Saturated counters", "table",
              [(f"fabric_port_pma_saturated{{{S}}} == 1", "")], 12, 20, 12, 8, table=True, unit="none"),
        panel(8, "PFC enabled per priority", "table", [(f"fabric_pfc_enabled{{{S}}}", "")], 0, 28, 8, 8,
              matrix=("netdev", "priority"), unit="bool_on_off"),
        panel(9, "PFC pause frames per priority", "timeseries",
              [(f"rate(fabric_pfc_pause_frames_total{{{S}}}[{R}])", "{{netdev}} prio {{priority}} {{direction}}")],
              8, 28, 16, 8, unit="pps"),
        panel(10, "Traffic per priority", "timeseries",
              [(f"rate(fabric_netdev_priority_bytes_total{{{S}}}[{R}]) * 8", "{{netdev}} prio {{priority}} {{direction}}")],
              0, 36, 12, 8, unit="bps"),
        panel(11, "MTU: RDMA active vs netdev", "table", [
            (f"fabric_port_active_mtu_bytes{{{S}}}", ""), (f"fabric_netdev_mtu_bytes{{{S}}}", "")], 12, 36, 12, 8,
              table=True, unit="decbytes"),
        panel(12, "GPU x NIC path matrix", "table", [(f"fabric_gpu_nic_path{{{S}}}", "")], 0, 44, 12, 8,
              matrix=("gpu", "device"), unit="none",
              description="PIX: one PCIe switch; PXB: several; PHB: through the host bridge; NODE: same NUMA node; SYS: across sockets (label `path`)."),
        panel(13, "PCIe links: width now / best", "table", [
            (f"fabric_pcie_link_width{{{S}}}", ""), (f"fabric_pcie_link_max_width{{{S}}}", "")], 12, 44, 12, 8, table=True,
              unit="short"),
        panel(14, "PCIe link speed now / best", "table", [
            (f"fabric_pcie_link_speed_transfers_per_second{{{S}}}", ""),
            (f"fabric_pcie_link_max_speed_transfers_per_second{{{S}}}", "")], 0, 52, 12, 8, table=True, unit="short"),
        panel(15, "Queue pairs by state", "timeseries", [(f"fabric_queue_pairs{{{S}}}", "{{device}} {{state}}")],
              12, 52, 12, 8, stack=True),
        panel(16, "RoCE physical layer errors", "timeseries", [
            (f"rate(fabric_netdev_phy_errors_total{{{S}}}[{R}])", "{{netdev}} {{type}}"),
            (f"rate(fabric_netdev_phy_lane_errors_total{{{S}}}[{R}])", "{{netdev}} lane {{lane}}")], 0, 60, 12, 8, unit="cps",
              description="CRC, symbol and PCS errors, and receive errors per lane: one lane far above its siblings is a bad lane of the cable or optic."),
        panel(17, "Global pause and lossless-priority drops", "timeseries", [
            (f"rate(fabric_global_pause_frames_total{{{S}}}[{R}])", "{{netdev}} 802.3x pause {{direction}}"),
            (f"rate(fabric_netdev_priority_buffer_discards_total{{{S}}}[{R}])", "{{netdev}} prio {{priority}} buffer drops")],
              12, 60, 12, 8, unit="pps"),
        panel(18, "Expected hardware (inventory)", "table", [
            (f"fabric_inventory_present{{{S}}}", ""), (f"fabric_inventory_port_expected_up{{{S}}}", "")], 0, 68, 12, 8,
              table=True, unit="none", merge={"Value #A": "present", "Value #B": "must be up"},
              description="What this host is expected to have (docs/alerts.md, The inventory): present 0 is gone "
                          "(hardware_missing); a port that must be up was seen up. `fabricd inventory show` on the host; "
                          "`fabricd inventory accept` after an intended change."),
        panel(19, "Carrier changes of RoCE netdevs (1 h)", "timeseries",
              [(f"increase(fabric_netdev_carrier_changes_total{{{S}}}[1h])", "{{netdev}}")], 12, 68, 12, 8, unit="short",
              description="Every time a netdev's carrier went up or down: a flap between two scrapes shows here."),
        panel(20, "Probe hold: how long this host takes to answer", "timeseries", [
            (f"histogram_quantile(0.5, sum by (le) (rate(fabric_probe_responder_hold_seconds_bucket{{{S}}}[{R}])))", "median"),
            (f"histogram_quantile(0.9, sum by (le) (rate(fabric_probe_responder_hold_seconds_bucket{{{S}}}[{R}])))", "p90"),
            (f"histogram_quantile(0.99, sum by (le) (rate(fabric_probe_responder_hold_seconds_bucket{{{S}}}[{R}])))", "p99"),
            ('fabric:probe_responder_hold_p90:fleet_median{cluster=~"$cluster"}', "fleet median of the p90 (5 min)")],
              0, 76, 24, 8, unit="s",
              description="How long fabricd's probe responder on this host held the probes it answered, from their arrival at its "
                          "socket to its answer (fabric_probe_responder_hold_seconds): the host's own share of its peers' round "
                          "trips, which the RTTs leave out. Tens of microseconds on a healthy host; a median of milliseconds is a "
                          "starved CPU, a p90 of milliseconds under a fast median a host that stalls now and then, and every "
                          "collective the host joins waits for it (FabricHostSlowToAnswer judges the p90 against the fleet's; "
                          "fabricd preflight excludes it). A lone p99 spike is one pause."),
    ], single_host=True)


LOSS = ("sum by ({g}) (rate(fabric_probe_lost_total{{{s}}}[5m]){j})"
        " / (sum by ({g}) (rate(fabric_probe_sent_total{{{s}}}[5m]){j}) > 0)")
JOIN = " * on(instance) group_left(rack) max by (instance, rack) (fabric_host_info)"


C = 'cluster=~"$cluster"'
# the row's leaf and the column's peer leaf of a leaf x peer leaf matrix (groupingToMatrix)
CELL = {"leaf": "${__data.fields[0]}", "peer_rack": "${__field.name}"}


def explore(expr, labels):
    """An Explore link that runs expr on the panel's data source, with labels set from the clicked cell."""
    sel = ", ".join(f'{k}="VAR{i}VAR"' for i, k in enumerate(labels))
    pane = {"a": {"datasource": "DSVAR", "queries": [{"refId": "A", "expr": f"{expr}{{{sel}}}",
                                                     "datasource": {"type": "prometheus", "uid": "DSVAR"}}],
                  "range": {"from": "now-1h", "to": "now"}}}
    text = quote(json.dumps(pane, separators=(",", ":")), safe="").replace("DSVAR", "${datasource:percentencode}")
    # Grafana fills the variables in, percent-encoded
    for i, v in enumerate(labels.values()):
        text = text.replace(f"VAR{i}VAR", v[:-1] + ":percentencode}")
    return "/explore?schemaVersion=1&orgId=1&panes=" + text


def leaf_matrix(pid, title, expr, x, unit, pairs, description):
    """A leaf x peer leaf matrix of a recording rule; a cell links to the pairs behind it in Explore."""
    p = panel(pid, title, "table", [(expr, "")], x, 0, 8, 10, unit=unit, matrix=("leaf", "peer_leaf"), description=description)
    p["fieldConfig"]["defaults"]["links"] = [{"title": "The pairs behind this cell", "url": explore(pairs, CELL)}]
    # the first column holds the rows' leaves: no link there
    p["fieldConfig"]["overrides"] = [{"matcher": {"id": "byName", "options": "leaf\\peer_leaf"},
                                      "properties": [{"id": "links", "value": []}]}]
    return p


def fabric_panels():
    """The fabric's switches (docs/alerts.md, "A suspect switch"): empty where the agents know no topology."""
    switches = panel(13, "Switches: probe pairs through each", "table", [
        (f"fabric:probe_hurt_pair_share_by_switch:ratio{{{C}}}", ""), (f"fabric:probe_hurt_hosts_by_switch:count{{{C}}}", ""),
        (f"fabric:probe_pairs_by_switch:count{{{C}}}", ""), (f"fabric:probe_loss_ratio_by_switch:avg{{{C}}}", ""),
        (f"fabric:probe_rtt_recent_p99_by_switch:avg{{{C}}}", "")], 0, 10, 24, 8, unit="none",
        merge={"Value #A": "share of pairs hurt", "Value #B": "hosts hurt", "Value #C": "pairs", "Value #D": "mean loss",
               "Value #E": "mean p99"},
        description="Each leaf and spine with the probed host pairs that cross it: the share hurt (over 2% lost or a p99 "
                    "over 5 ms), how many of its hosts are hurt with two or more counterparts, the pairs, their mean loss and "
                    "p99. FabricSwitchSuspect names a switch whose pairs are hurt while the others are healthy (docs/alerts.md, "
                    "A suspect switch).")
    switches["fieldConfig"]["overrides"] = [
        {"matcher": {"id": "byName", "options": n}, "properties": [{"id": "unit", "value": u}]}
        for n, u in (("share of pairs hurt", "percentunit"), ("mean loss", "percentunit"), ("mean p99", "s"))]
    return [
        leaf_matrix(10, "Loss: leaf x peer leaf", f"fabric:probe_loss_ratio_by_leaf_pair:avg{{{C}}}", 0, "percentunit",
                    "fabric:probe_loss_ratio_by_pair:rate5m",
                    "Rows: the probing host's leaf (fabric_topology_info); columns: the peer's (peer_rack). Each cell: the "
                    "mean loss of its host pairs over 5 minutes (each pair's worst transport and size). A row and a column "
                    "lit together is that leaf; the cells between leaves lit and the diagonal (within a leaf) clean, their "
                    "spine. Click a cell for its pairs."),
        leaf_matrix(11, "Pairs hurt: leaf x peer leaf",
                    f"fabric:probe_hurt_pairs_by_leaf_pair:count{{{C}}} / fabric:probe_pairs_by_leaf_pair:count{{{C}}}", 8,
                    "percentunit", "fabric:probe_pair_hurt:bool",
                    "The share of each cell's host pairs that lose over 2% of their probes or have a p99 over 5 ms. One bad "
                    "host lights a part of its leaf's row and column; a bad leaf all of them. Click a cell for its pairs "
                    "(1: hurt)."),
        leaf_matrix(12, "p99 RTT: leaf x peer leaf", f"fabric:probe_rtt_recent_p99_by_leaf_pair:avg{{{C}}}", 16, "s",
                    "fabric:probe_rtt_recent_p99_by_pair:max",
                    "The mean over each cell's host pairs of their p99 round trip (of the last 256 probes, the worst "
                    "transport and size). Click a cell for its pairs."),
        switches,
    ]


def below(dy, panels):
    """The panels moved down by dy rows."""
    for p in panels:
        p["gridPos"]["y"] += dy
    return panels


def pingmesh():
    return dashboard("fabricd-pingmesh", "fabricd / Pingmesh",
                     "Probe loss and latency between leaves, racks and hosts, and the fabric's suspect switches "
                     "(docs/probes.md, docs/alerts.md).", fabric_panels() + below(18, [
        panel(1, "Loss: rack x peer rack", "table",
              [(LOSS.format(g="rack, peer_rack", s=S, j=JOIN), "")], 0, 0, 12, 10, unit="percentunit",
              matrix=("rack", "peer_rack"), description="Rows: the probing host's rack (fabric_host_info); columns: the peer's."),
        panel(2, "p99 RTT: rack x peer rack", "table",
              [(f"histogram_quantile(0.99, sum by (rack, peer_rack, le) (rate(fabric_probe_rtt_seconds_bucket{{{S}}}[5m]){JOIN}))", "")],
              12, 0, 12, 10, unit="s", matrix=("rack", "peer_rack")),
        panel(3, "Loss: host x peer", "table", [(LOSS.format(g="hostname, peer", s=S, j=NAMED), "")], 0, 10, 12, 10,
              unit="percentunit", matrix=("hostname", "peer")),
        panel(4, "p50 RTT: host x peer", "table",
              [(f'max by (hostname, peer) (fabric_probe_rtt_recent_seconds{{{S}, quantile="0.5"}}{NAMED})', "")],
              12, 10, 12, 10, unit="s", matrix=("hostname", "peer"),
              description="The median of each host's last 256 answered probes to each peer (fabric_probe_rtt_recent_seconds)."),
        panel(5, "Loss by peer rack over time", "timeseries",
              [(LOSS.format(g="peer_rack, transport, size", s=S, j=""), "{{peer_rack}} {{transport}} {{size}} B")],
              0, 20, 12, 8, unit="percentunit"),
        panel(6, "RTT p50 / p99 by transport and size", "timeseries", [
            (f"histogram_quantile(0.5, sum by (transport, size, le) (rate(fabric_probe_rtt_seconds_bucket{{{S}}}[{R}])))",
             "p50 {{transport}} {{size}} B"),
            (f"histogram_quantile(0.99, sum by (transport, size, le) (rate(fabric_probe_rtt_seconds_bucket{{{S}}}[{R}])))",
             "p99 {{transport}} {{size}} B")], 12, 20, 12, 8, unit="s"),
        panel(7, "Probes sent, lost, late", "timeseries", [
            (f"sum(rate(fabric_probe_sent_total{{{S}}}[{R}]))", "sent"),
            (f"sum(rate(fabric_probe_lost_total{{{S}}}[{R}]))", "lost"),
            (f"sum(rate(fabric_probe_late_total{{{S}}}[{R}]))", "late")], 0, 28, 12, 8, unit="pps"),
        panel(8, "Responder: answered and dropped", "timeseries", [
            (f"sum by (instance) (rate(fabric_probe_responder_answered_total{{{S}}}[{R}])){NAMED}", "{{hostname}} answered"),
            (f"sum by (instance, reason) (rate(fabric_probe_responder_dropped_total{{{S}}}[{R}])){NAMED}",
             "{{hostname}} dropped {{reason}}")], 12, 28, 12, 8, unit="pps"),
        panel(9, "Bandwidth: last test against its ceiling", "table", [
            (f"fabric_bandwidth_bytes_per_second{{{S}}} * 8 / 1e9", ""),
            (f"max without (limit) (fabric_bandwidth_ceiling_bytes_per_second{{{S}}}) * 8 / 1e9", ""),
            (f"fabric_bandwidth_ratio{{{S}}}", "")], 0, 36, 24, 8, table=True, unit="none",
              merge={"Value #A": "Gb/s", "Value #B": "ceiling Gb/s", "Value #C": "share of ceiling"},
              description="The last RDMA WRITE bandwidth test per host, device and peer (fabricd bw, a peer's test into this host, "
                          "or the agent's schedule): Gb/s moved, what the link and both NICs' PCIe can carry, and the share. "
                          "Below 0.8 is the bandwidth_low finding (docs/bandwidth.md)."),
    ]))


def audit():
    return dashboard("fabricd-config-audit", "fabricd / Configuration audit",
                     "Open findings and the configuration they judge (docs/checks.md).", [
        panel(1, "Critical", "stat", [(f'count(fabric_finding{{{S}, severity="critical"}}) or vector(0)', "critical")],
              0, 0, 6, 4),
        panel(2, "Warning", "stat", [(f'count(fabric_finding{{{S}, severity="warning"}}) or vector(0)', "warning")],
              6, 0, 6, 4),
        panel(3, "Info", "stat", [(f'count(fabric_finding{{{S}, severity="info"}}) or vector(0)', "info")], 12, 0, 6, 4),
        panel(4, "Hosts with findings", "stat", [(f"count(count by (instance) (fabric_finding{{{S}}})) or vector(0)", "hosts")],
              18, 0, 6, 4),
        panel(5, "Open findings", "table", [(f"max without (__name__) (fabric_finding_text{{{S}}}){NAMED}", "")], 0, 4, 24, 12,
              table=True, unit="none",
              description="One row per open finding with its summary and the first step of its remediation; the evidence: "
                          "`fabricd diagnose` on the host or its /api/v1/findings."),
        panel(6, "Findings by check over time", "timeseries", [(f"count by (check) (fabric_finding{{{S}}})", "{{check}}")],
              0, 16, 12, 8, stack=True),
        panel(7, "PFC enabled priorities", "table", [(f"fabric_pfc_enabled{{{S}}} == 1", "")], 12, 16, 12, 8, table=True,
              unit="none"),
        panel(8, "QoS trust and driver per netdev", "table", [(f"fabric_netdev_info{{{S}}}", "")], 0, 24, 12, 8, table=True,
              unit="none"),
        panel(9, "GPUDirect RDMA", "stat", [(f"fabric_gpudirect_rdma_enabled{{{S}}}{NAMED}", "{{hostname}}")], 12, 24, 12, 8,
              unit="bool_on_off"),
        panel(10, "NIC PCIe Device Control", "table", [
            (f'fabric_pci_max_read_request_bytes{{{S}, kind="nic"}}', ""),
            (f'fabric_pci_max_payload_bytes{{{S}, kind="nic"}}', ""),
            (f'fabric_pci_max_payload_supported_bytes{{{S}, kind="nic"}}', ""),
            (f'fabric_pci_relaxed_ordering_enabled{{{S}, kind="nic"}}', "")], 0, 32, 24, 8, table=True, unit="none",
              merge={"Value #A": "max read request B", "Value #B": "max payload B", "Value #C": "payload supported B",
                     "Value #D": "relaxed ordering"},
              description="Per RDMA NIC function, from its config space: Max Read Request below 4096 is pcie_max_read_request, "
                          "Max Payload below what the path allows pcie_max_payload (docs/checks.md). No row where fabricd "
                          "read only 64 bytes (not root: fabric_pci_config_bytes_read)."),
        panel(11, "ACS redirect on bridges", "table",
              [(f'fabric_pci_acs_control{{{S}, control=~"request_redirect|completion_redirect|egress_control"}} == 1', "")],
              0, 40, 12, 8, table=True, unit="none",
              description="Bridges whose ACS sends peer-to-peer traffic up to the root complex. Between a GPU and a NIC on one "
                          "switch this is pcie_acs_redirect (docs/checks.md); empty is good."),
        panel(12, "IOMMU mode of GPUs and NICs", "table", [(f"fabric_pci_iommu_mode{{{S}}}", "")], 12, 40, 12, 8, table=True,
              unit="none",
              description="translated (DMA, DMA-FQ) on a GPUDirect host is iommu_translation; passthrough or off is what "
                          "NVIDIA advises for bare metal."),
        panel(13, "Hosts that drift from their fleet", "table", [
            (f"(fabric_config_info{{{S}}} * on (cluster, job, hca_type, key, value) group_left () "
             f"(fabric:config_value_share:ratio < 0.5)){NAMED}", "")], 0, 48, 12, 8, table=True, unit="percentunit",
              description="Each row: a host whose value of a key (firmware, mtu, pfc, trust, ...) is held by under half of the "
                          "hosts with the same cards; the value is that share. FabricConfigDrift raises a ticket when a clear "
                          "majority holds another value (docs/alerts.md, Fleet drift)."),
        panel(14, "Configuration values across the fleet", "table",
              [('fabric:config_value_share:ratio{cluster=~"$cluster"}', "")], 12, 48, 12, 8, table=True, unit="percentunit",
              description="Per card model (hca_type) and key, each value and the share of hosts holding it."),
    ])


def main():
    import argparse
    parser = argparse.ArgumentParser(prog="tools/dashboards.py", description="Writes fabricd's Grafana dashboards (*.json) "
                                     "from the panel lists of tools/dashboards.py.")
    # an argument starting with '-' is an option (--help) or a mistake, never a folder to write into
    parser.add_argument("out_dir", nargs="?", metavar="OUT_DIR", help="write the dashboards there only (a test writes "
                        "elsewhere and compares); default: dashboards/grafana and the Helm chart's copy, "
                        "deploy/helm/fabricd/files/dashboards (which `helm package` needs inside the chart; ChartFilesTest "
                        "checks the two copies are identical)")
    args = parser.parse_args(sys.argv[1:])
    if args.out_dir is not None and args.out_dir.startswith("-"):
        parser.error("OUT_DIR %r starts with '-': not a folder to write the dashboards into (./%s if you mean it)" % (args.out_dir, args.out_dir))
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    outs = [args.out_dir] if args.out_dir else [os.path.join(here, "dashboards", "grafana"), os.path.join(here, "deploy", "helm", "fabricd", "files", "dashboards")]
    for out in outs:
        os.makedirs(out, exist_ok=True)
        for name, d in [("fleet-overview", fleet()), ("host", host()), ("pingmesh", pingmesh()), ("config-audit", audit())]:
            with open(os.path.join(out, name + ".json"), "w") as f:
                json.dump(d, f, indent=2)
                f.write("\n")
            print("wrote %s/%s.json (%d panels)" % (os.path.relpath(out, here), name, len(d["panels"])))


if __name__ == "__main__":
    main()
