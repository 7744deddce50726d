#!/usr/bin/env python3
"""Writes fabric.test.yaml: FabricSwitchSuspect's promtool tests on a small fabric with a full probe mesh.

Nine hosts, three under each leaf: leaf-a and leaf-b under spine-1, leaf-c under spine-2. Every host
probes every other (72 pairs, 2 probes a second each); each scenario makes some pairs lose probes
from minute 3, or slow from minute 4. Run `python3 alerts/tests/fabric_mesh.py` after
changing a scenario; the YAML is committed and `promtool test rules` reads it as the others.
"""
import os

LEAVES = {"leaf-a": "spine-1", "leaf-b": "spine-1", "leaf-c": "spine-2"}
HOSTS = {f"{leaf[-1]}{i}": leaf for leaf in LEAVES for i in (1, 2, 3)}
PAIRS = [(p, q) for p in HOSTS for q in HOSTS if p != q]


def through(p, q, switch, tier):
    """Whether the pair (prober p, peer q) crosses the switch: its leaf at either end, or a spine between two leaves."""
    return switch in (HOSTS[p], HOSTS[q]) if tier == "leaf" else crosses_spine(p, q, switch)


def crosses_spine(p, q, spine):
    lp, lq = HOSTS[p], HOSTS[q]
    return lp != lq and spine in (LEAVES[lp], LEAVES[lq])


def scenario(comment, loss=lambda p, q: 0, alerts=(), known=True, minutes=None, rtt=None, down=()):
    """comment; loss: pair -> the share of its probes lost from minute 3 (for `minutes`, else lasting); rtt: pair ->
    its p99 from minute 4 (None: no latency series); down: hosts whose agents are down for minutes 3 to 12 (a
    reboot: their own series gone, every probe to them lost); alerts: (switch, tier, share of its pairs hurt, hosts
    hurt)."""
    return {"comment": comment, "loss": loss, "alerts": list(alerts), "known": known, "minutes": minutes, "rtt": rtt,
            "down": down}


def in_leaf_b(p, q):
    return "leaf-b" in (HOSTS[p], HOSTS[q])


SCENARIOS = [
    scenario("A bad leaf: every pair with an end under leaf-b loses 30 %. All 42 pairs through it are hurt on its "
             "three hosts while the 30 pairs that do not cross it are healthy: FabricSwitchSuspect names leaf-b, as "
             "a warning and as critical (above half). Its spine's pairs are hurt too, but so are pairs within "
             "leaf-b, which do not cross the spine: spine-1 is not named, nor are the other leaves.",
             loss=lambda p, q: 0.3 if in_leaf_b(p, q) else 0, alerts=[("leaf-b", "leaf", "100%", 3)]),
    scenario("A bad spine: every pair between two leaves crossing spine-1 (all 54 of them here) loses 30 %, pairs "
             "within a leaf do not: spine-1 is named. spine-2's pairs are all hurt too, but so are pairs between "
             "leaf-a and leaf-b, which do not cross it; each leaf's outside pairs are hurt as well.",
             loss=lambda p, q: 0.3 if crosses_spine(p, q, "spine-1") else 0, alerts=[("spine-1", "spine", "100%", 6)]),
    scenario("A congested spine: from minute 4 the pairs crossing spine-1 have a p99 of 20 ms, and lose nothing: "
             "spine-1 is named, as for loss.",
             rtt=lambda p, q: 0.02 if crosses_spine(p, q, "spine-1") else 0.0009, alerts=[("spine-1", "spine", "100%", 6)]),
    scenario("A leaf's uplink, one way: what the hosts of leaf-b send to other leaves loses 30 % (18 of its 42 "
             "pairs: 43 %, a warning only). Only spine-1 and leaf-b carry those pairs; the spine above a suspect "
             "leaf is that leaf's uplinks, so leaf-b alone is named.",
             loss=lambda p, q: 0.3 if HOSTS[p] == "leaf-b" and HOSTS[q] != "leaf-b" else 0,
             alerts=[("leaf-b", "leaf", "42.86%", 3)]),
    scenario("One bad host: every pair with a2 loses 50 %. 16 of leaf-a's 42 pairs are hurt (38 %), but each of its "
             "neighbours has one hurt pair (with a2): one host hurt is a host, not its leaf. Nothing fires.",
             loss=lambda p, q: 0.5 if "a2" in (p, q) else 0),
    scenario("A blip: leaf-b loses every probe for 2 minutes. Its pairs are hurt while the 5-minute window holds the "
             "loss (minutes 4 to 9), under the 7-minute hold: nothing fires.",
             loss=lambda p, q: 1 if in_leaf_b(p, q) else 0, minutes=2),
    scenario("Two hosts of leaf-b reboot: their agents are down for 10 minutes and every probe to them is lost. "
             "Pairs towards a peer whose agent is down are left out, and once it is back its pairs are hurt for less "
             "than the hold (the window still holds the loss): nothing fires.",
             loss=lambda p, q: 1 if q in ("b1", "b2") else 0, minutes=10, down=("b1", "b2")),
    scenario("A healthy fabric: nothing fires, and the leaf x leaf matrix is there with no loss."),
    scenario("No topology: the agents know no leaf (fabric_topology_info's leaf empty; peer_rack is the rack "
             "label). The same loss as the bad leaf: nothing fires, and there are no switch series at all.",
             loss=lambda p, q: 0.3 if in_leaf_b(p, q) else 0, known=False),
]

SENT = 120  # probes a minute per pair


def series(sc):
    known = sc["known"]
    out = []
    for h, leaf in HOSTS.items():
        labels = (f'leaf="{leaf}", spine="{LEAVES[leaf]}"' if known else 'leaf="", spine=""')
        out.append((f'fabric_topology_info{{instance="{h}:9530", job="fabricd", {labels}, core="", accelerator="", '
                    f'source="{"file" if known else ""}"}}', "1x30"))
        if sc["down"]:
            out.append((f'up{{instance="{h}:9530", job="fabricd"}}', "1x2 0x10 1x18" if h in sc["down"] else "1x30"))
    for p, q in PAIRS:
        if p in sc["down"]:
            sel = f'instance="{p}:9530", job="fabricd", peer="{q}:9530", peer_rack="{HOSTS[q]}", transport="udp", size="64"'
            out += [(f"fabric_probe_sent_total{{{sel}}}", f"0+{SENT}x2 _x10 0+{SENT}x17"),
                    (f"fabric_probe_lost_total{{{sel}}}", "0x2 _x10 0x17")]
            continue
        rack = HOSTS[q] if known else "r" + HOSTS[q][-1]
        sel = f'instance="{p}:9530", job="fabricd", peer="{q}:9530", peer_rack="{rack}", transport="udp", size="64"'
        out.append((f"fabric_probe_sent_total{{{sel}}}", f"0+{SENT}x30"))
        lost, n = round(SENT * sc["loss"](p, q)), sc["minutes"]
        out.append((f"fabric_probe_lost_total{{{sel}}}", "0x30" if not lost else f"0x2 0+{lost}x27" if n is None
                    else f"0x2 0+{lost}x{n} {lost * n}x{27 - n}"))
        if sc["rtt"]:
            out.append((f'fabric_probe_rtt_recent_seconds{{{sel}, quantile="0.99"}}', f"0.0009x3 {sc['rtt'](p, q)}x27"))
    return out


def hurt_at_end(sc, p, q):
    return sc["minutes"] is None and sc["loss"](p, q) > 0.02 or sc["rtt"] is not None and sc["rtt"](p, q) > 0.005


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    y = ["# promtool test rules fabric.test.yaml (written by fabric_mesh.py: edit the scenarios there)",
         "# FabricSwitchSuspect on a fabric of nine hosts, three under each of leaf-a, leaf-b (spine-1) and leaf-c",
         "# (spine-2), all probing each other. Loss from minute 3: pairs hurt from minute 4 (more than 2 % over",
         "# 5 minutes), held 7 minutes: firing at minute 11, and not at 10.",
         "rule_files: [../fabric.rules.yaml]", "evaluation_interval: 1m", "tests:"]
    for sc in SCENARIOS:
        known, expected = sc["known"], sc["alerts"]
        words, line = sc["comment"].split(), "  #"
        for w in words:
            if len(line) + 1 + len(w) > 110:
                y.append(line)
                line = "  #"
            line += " " + w
        y.append(line)
        y += ["  - interval: 1m", "    input_series:"]
        for s, v in series(sc):
            y += [f"      - series: '{s}'", f"        values: '{v}'"]
        y.append("    alert_rule_test:")
        for t in ("10m", "11m", "25m"):
            y += [f"      - eval_time: {t}", "        alertname: FabricSwitchSuspect"]
            if t == "10m" or not expected:
                y.append("        exp_alerts: []")
                continue
            y.append("        exp_alerts:")
            for switch, tier, share, hosts in expected:
                sevs = ["warning", "critical"] if share == "100%" else ["warning"]
                for sev in sevs:
                    y += [f"          - exp_labels: {{severity: {sev}, category: fabric, job: fabricd, switch: {switch}, tier: {tier}}}",
                          "            exp_annotations:", f"              summary: \"{summary(switch, tier, share)}\"",
                          f"              description: \"{description(switch, tier, share, hosts)}\"",
                          "              runbook_url: https://github.com/fabricd/fabricd/blob/main/docs/alerts.md#a-suspect-switch"]
        y.append("    promql_expr_test:")
        # the pairs through each switch and those hurt, counted here from the fabric's tree
        for record, hurt in (("fabric:probe_pairs_by_switch:count", False), ("fabric:probe_hurt_pairs_by_switch:count", True)):
            y += [f"      - expr: {record}", "        eval_time: 25m"]
            if not known:
                y.append("        exp_samples: []")
                continue
            y.append("        exp_samples:")
            for sw, tier in [(leaf, "leaf") for leaf in LEAVES] + [(sp, "spine") for sp in sorted(set(LEAVES.values()))]:
                n = sum(1 for p, q in PAIRS if through(p, q, sw, tier) and (not hurt or hurt_at_end(sc, p, q)))
                y += [f"          - labels: '{record}{{job=\"fabricd\", switch=\"{sw}\", tier=\"{tier}\"}}'",
                      f"            value: {n}"]
    with open(os.path.join(here, "fabric.test.yaml"), "w", encoding="utf-8") as f:
        f.write("\n".join(y) + "\n")


def summary(switch, tier, share):
    return f"Switch {switch} ({tier}) is suspect: {share} of the probe pairs through it are hurt"


def description(switch, tier, share, hosts):
    return (f"{share} of the probed host pairs that cross {tier} switch {switch} have lost more than 2% of their probes or had "
            f"a p99 round trip above 5 ms for 7 minutes, on {hosts} of the hosts under it, while the pairs that do not cross it "
            "are healthy: the switch or its links are the common element. Open the Pingmesh dashboard's leaf x leaf matrix, "
            f"then find the switch's ports: fabric_port_neighbor_info{{switch=\\\"{switch}\\\"}} names the host port on each of "
            "them; check their error and drop counters on the switch, and drain its hosts while jobs suffer.")


if __name__ == "__main__":
    main()
