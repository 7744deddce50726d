#!/usr/bin/env python3
"""Writes fabricd's Grafana dashboards (dashboards/grafana/*.json) from the compact panel lists below.

Edit the lists here, then run `python3 tools/dashboards.py`; the JSON files are its output and are
committed. Every expression uses only families fabricd exports (docs/metrics.md) and the template
variables $cluster, $rack, $host and $__rate_interval; PrometheusIT evaluates each one against a
real Prometheus scraping `fabricd run --demo`.
"""
import json
import os
import sys

S = 'cluster=~"$cluster", instance=~"$host"'
R = "$__rate_interval"


def variables():
    ds = {"type": "prometheus", "uid": "${datasource}"}
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
        # no allValue: "All" expands to the hosts of the selected racks
        {"name": "host", "label": "Host", "type": "query", "datasource": ds,
         "query": {"query": 'label_values(fabric_host_info{cluster=~"$cluster", rack=~"$rack"}, instance)', "refId": "host"},
         "definition": 'label_values(fabric_host_info{cluster=~"$cluster", rack=~"$rack"}, instance)',
         "includeAll": True, "multi": True, "refresh": 2, "current": {"text": "All", "value": "$__all"}},
    ]


def panel(pid, title, kind, targets, x, y, w, h, unit=None, description=None, instant=False, table=False, matrix=None,
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


def dashboard(uid, title, description, panels):
    return {
        "uid": uid, "title": title, "description": description, "tags": ["fabricd", "rdma"],
        "schemaVersion": 39, "version": 1, "editable": True, "graphTooltip": 1, "refresh": "30s",
        "time": {"from": "now-6h", "to": "now"}, "timezone": "",
        "templating": {"list": variables()}, "annotations": {"list": []},
        "links": [{"title": "fabricd", "type": "dashboards", "tags": ["fabricd"], "asDropdown": True}],
        "panels": panels,
    }


def fleet():
    return dashboard("fabricd-fleet", "fabricd / Fleet overview",
                     "RDMA ports, findings, traffic and congestion across the selected hosts.", [
        panel(1, "Hosts", "stat", [(f"count(fabric_host_info{{{S}}})", "hosts")], 0, 0, 4, 4),
        panel(2, "RDMA ports up", "stat", [(f"sum(fabric_port_up{{{S}}})", "up")], 4, 0, 4, 4),
        panel(3, "RDMA ports down", "stat", [(f"count(fabric_port_up{{{S}}} == 0) or vector(0)", "down")], 8, 0, 4, 4),
        panel(4, "Open findings by severity", "stat",
              [(f"count by (severity) (fabric_finding{{{S}}})", "{{severity}}")], 12, 0, 6, 4),
        panel(5, "Collectors failing", "stat",
              [(f"count(fabric_collector_success{{{S}}} == 0) or vector(0)", "failing")], 18, 0, 6, 4),
        panel(6, "Findings by check", "bargauge",
              [(f"count by (check) (fabric_finding{{{S}}})", "{{check}}")], 0, 4, 12, 8, instant=True),
        panel(7, "RDMA traffic (transmit, per host)", "timeseries",
              [(f"sum by (instance) (rate(fabric_port_transmit_bytes_total{{{S}}}[{R}]))", "{{instance}}")],
              12, 4, 12, 8, unit="Bps"),
        panel(8, "PFC pause time received (share of time paused)", "timeseries",
              [(f'sum by (instance, netdev, priority) (rate(fabric_pfc_pause_seconds_total{{{S}, direction="rx"}}[{R}]))',
                "{{instance}} {{netdev}} prio {{priority}}")], 0, 12, 12, 8, unit="percentunit"),
        panel(9, "PFC pause frames sent", "timeseries",
              [(f'sum by (instance, netdev, priority) (rate(fabric_pfc_pause_frames_total{{{S}, direction="tx"}}[{R}]))',
                "{{instance}} {{netdev}} prio {{priority}}")], 12, 12, 12, 8, unit="pps"),
        panel(10, "ECN-marked RoCE packets", "timeseries",
              [(f"sum by (instance) (rate(fabric_roce_ecn_marked_packets_total{{{S}}}[{R}]))", "{{instance}}")],
              0, 20, 12, 8, unit="pps"),
        panel(11, "CNPs sent, handled, ignored", "timeseries", [
            (f"sum(rate(fabric_roce_cnp_sent_total{{{S}}}[{R}]))", "sent"),
            (f"sum(rate(fabric_roce_cnp_handled_total{{{S}}}[{R}]))", "handled"),
            (f"sum(rate(fabric_roce_cnp_ignored_total{{{S}}}[{R}]))", "ignored")], 12, 20, 12, 8, unit="pps"),
    ])


ERR = "symbol_error|link_error_recovery|link_downed|port_rcv_errors|port_rcv_remote_physical_errors|port_xmit_discards|local_link_integrity_errors|excessive_buffer_overrun_errors"


def host():
    return dashboard("fabricd-host", "fabricd / Host drill-down",
                     "One host's RDMA ports, errors, PFC per priority, GPU x NIC paths and PCIe links.", [
        panel(1, "RDMA ports", "table", [(f"fabric_port_info{{{S}}}", "")], 0, 0, 24, 6, table=True),
        panel(2, "Port up", "state-timeline", [(f"fabric_port_up{{{S}}}", "{{instance}} {{device}}/{{port}}")],
              0, 6, 12, 6),
        panel(3, "Port rate", "stat", [(f"fabric_port_rate_bytes_per_second{{{S}}}", "{{device}}/{{port}}")],
              12, 6, 12, 6, unit="Bps"),
        panel(4, "Traffic per port", "timeseries", [
            (f"rate(fabric_port_transmit_bytes_total{{{S}}}[{R}])", "{{device}}/{{port}} tx"),
            (f"rate(fabric_port_receive_bytes_total{{{S}}}[{R}])", "{{device}}/{{port}} rx")], 0, 12, 12, 8, unit="Bps"),
        panel(5, "Port error counters", "timeseries",
              [(f'rate(fabric_port_pma_total{{{S}, counter=~"{ERR}"}}[{R}])', "{{device}}/{{port}} {{counter}}")],
              12, 12, 12, 8, unit="cps"),
        panel(6, "Transport errors by type", "timeseries",
              [(f"sum by (device, port, type) (rate(fabric_port_transport_errors_total{{{S}}}[{R}]))",
                "{{device}}/{{port}} {{type}}")], 0, 20, 12, 8, unit="cps",
              description="From the driver's hw_counters/ (mlx5, rxe, bnxt_re, irdma), by type: retries_exceeded, ack_timeout, sequence_error, out_of_sequence, ... (docs/checks.md#transport_errors)."),
        panel(7, "Saturated counters", "table",
              [(f"fabric_port_pma_saturated{{{S}}} == 1", "")], 12, 20, 12, 8, table=True),
        panel(8, "PFC enabled per priority", "table", [(f"fabric_pfc_enabled{{{S}}}", "")], 0, 28, 8, 8,
              matrix=("netdev", "priority")),
        panel(9, "PFC pause frames per priority", "timeseries",
              [(f"rate(fabric_pfc_pause_frames_total{{{S}}}[{R}])", "{{netdev}} prio {{priority}} {{direction}}")],
              8, 28, 16, 8, unit="pps"),
        panel(10, "Traffic per priority", "timeseries",
              [(f"rate(fabric_netdev_priority_bytes_total{{{S}}}[{R}])", "{{netdev}} prio {{priority}} {{direction}}")],
              0, 36, 12, 8, unit="Bps"),
        panel(11, "MTU: RDMA active vs netdev", "table", [
            (f"fabric_port_active_mtu_bytes{{{S}}}", ""), (f"fabric_netdev_mtu_bytes{{{S}}}", "")], 12, 36, 12, 8,
              table=True),
        panel(12, "GPU x NIC path matrix", "table", [(f"fabric_gpu_nic_path{{{S}}}", "")], 0, 44, 12, 8,
              matrix=("gpu", "device"),
              description="PIX: one PCIe switch; PXB: several; PHB: through the host bridge; NODE: same NUMA node; SYS: across sockets (label `path`)."),
        panel(13, "PCIe links: width now / best", "table", [
            (f"fabric_pcie_link_width{{{S}}}", ""), (f"fabric_pcie_link_max_width{{{S}}}", "")], 12, 44, 12, 8, table=True),
        panel(14, "PCIe link speed now / best", "table", [
            (f"fabric_pcie_link_speed_transfers_per_second{{{S}}}", ""),
            (f"fabric_pcie_link_max_speed_transfers_per_second{{{S}}}", "")], 0, 52, 12, 8, table=True),
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
    ])


LOSS = ("sum by ({g}) (rate(fabric_probe_lost_total{{{s}}}[5m]){j})"
        " / (sum by ({g}) (rate(fabric_probe_sent_total{{{s}}}[5m]){j}) > 0)")
JOIN = " * on(instance) group_left(rack) max by (instance, rack) (fabric_host_info)"


def pingmesh():
    return dashboard("fabricd-pingmesh", "fabricd / Pingmesh",
                     "Probe loss and latency between racks and hosts (docs/probes.md).", [
        panel(1, "Loss: rack x peer rack", "table",
              [(LOSS.format(g="rack, peer_rack", s=S, j=JOIN), "")], 0, 0, 12, 10, unit="percentunit",
              matrix=("rack", "peer_rack"), description="Rows: the probing host's rack (fabric_host_info); columns: the peer's."),
        panel(2, "p99 RTT: rack x peer rack", "table",
              [(f"histogram_quantile(0.99, sum by (rack, peer_rack, le) (rate(fabric_probe_rtt_seconds_bucket{{{S}}}[5m]){JOIN}))", "")],
              12, 0, 12, 10, unit="s", matrix=("rack", "peer_rack")),
        panel(3, "Loss: host x peer", "table", [(LOSS.format(g="instance, peer", s=S, j=""), "")], 0, 10, 12, 10,
              unit="percentunit", matrix=("instance", "peer")),
        panel(4, "p50 RTT: host x peer", "table",
              [(f"histogram_quantile(0.5, sum by (instance, peer, le) (rate(fabric_probe_rtt_seconds_bucket{{{S}}}[5m])))", "")],
              12, 10, 12, 10, unit="s", matrix=("instance", "peer")),
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
            (f"sum by (instance) (rate(fabric_probe_responder_answered_total{{{S}}}[{R}]))", "{{instance}} answered"),
            (f"sum by (instance, reason) (rate(fabric_probe_responder_dropped_total{{{S}}}[{R}]))",
             "{{instance}} dropped {{reason}}")], 12, 28, 12, 8, unit="pps"),
        panel(9, "Bandwidth: last test against its ceiling", "table", [
            (f"fabric_bandwidth_bytes_per_second{{{S}}} * 8 / 1e9", ""),
            (f"max without (limit) (fabric_bandwidth_ceiling_bytes_per_second{{{S}}}) * 8 / 1e9", ""),
            (f"fabric_bandwidth_ratio{{{S}}}", "")], 0, 36, 24, 8, table=True,
              merge={"Value #A": "Gb/s", "Value #B": "ceiling Gb/s", "Value #C": "share of ceiling"},
              description="The last RDMA WRITE bandwidth test per host, device and peer (fabricd bw, a peer's test into this host, "
                          "or the agent's schedule): Gb/s moved, what the link and both NICs' PCIe can carry, and the share. "
                          "Below 0.8 is the bandwidth_low finding (docs/bandwidth.md)."),
    ])


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
        panel(5, "Open findings", "table", [(f"fabric_finding{{{S}}}", "")], 0, 4, 24, 12, table=True,
              description="One row per open finding; evidence and remediation: the agent's /api/v1/findings or `fabricd diagnose`."),
        panel(6, "Findings by check over time", "timeseries", [(f"count by (check) (fabric_finding{{{S}}})", "{{check}}")],
              0, 16, 12, 8, stack=True),
        panel(7, "PFC enabled priorities", "table", [(f"fabric_pfc_enabled{{{S}}} == 1", "")], 12, 16, 12, 8, table=True),
        panel(8, "QoS trust and driver per netdev", "table", [(f"fabric_netdev_info{{{S}}}", "")], 0, 24, 12, 8, table=True),
        panel(9, "GPUDirect RDMA", "stat", [(f"fabric_gpudirect_rdma_enabled{{{S}}}", "{{instance}}")], 12, 24, 12, 8),
        panel(10, "NIC PCIe Device Control", "table", [
            (f'fabric_pci_max_read_request_bytes{{{S}, kind="nic"}}', ""),
            (f'fabric_pci_max_payload_bytes{{{S}, kind="nic"}}', ""),
            (f'fabric_pci_max_payload_supported_bytes{{{S}, kind="nic"}}', ""),
            (f'fabric_pci_relaxed_ordering_enabled{{{S}, kind="nic"}}', "")], 0, 32, 24, 8, table=True,
              merge={"Value #A": "max read request B", "Value #B": "max payload B", "Value #C": "payload supported B",
                     "Value #D": "relaxed ordering"},
              description="Per RDMA NIC function, from its config space: Max Read Request below 4096 is pcie_max_read_request, "
                          "Max Payload below what the path allows pcie_max_payload (docs/checks.md). No row where fabricd "
                          "read only 64 bytes (not root: fabric_pci_config_bytes_read)."),
        panel(11, "ACS redirect on bridges", "table",
              [(f'fabric_pci_acs_control{{{S}, control=~"request_redirect|completion_redirect|egress_control"}} == 1', "")],
              0, 40, 12, 8, table=True,
              description="Bridges whose ACS sends peer-to-peer traffic up to the root complex. Between a GPU and a NIC on one "
                          "switch this is pcie_acs_redirect (docs/checks.md); empty is good."),
        panel(12, "IOMMU mode of GPUs and NICs", "table", [(f"fabric_pci_iommu_mode{{{S}}}", "")], 12, 40, 12, 8, table=True,
              description="translated (DMA, DMA-FQ) on a GPUDirect host is iommu_translation; passthrough or off is what "
                          "NVIDIA advises for bare metal."),
    ])


def main():
    # tools/dashboards.py [OUT_DIR] (default: dashboards/grafana; a test writes elsewhere and compares)
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "dashboards", "grafana")
    os.makedirs(out, exist_ok=True)
    for name, d in [("fleet-overview", fleet()), ("host", host()), ("pingmesh", pingmesh()), ("config-audit", audit())]:
        with open(os.path.join(out, name + ".json"), "w") as f:
            json.dump(d, f, indent=2)
            f.write("\n")
        print("wrote dashboards/grafana/%s.json (%d panels)" % (name, len(d["panels"])))


if __name__ == "__main__":
    main()
