package io.fabricd.diagnosis.checks;

import io.fabricd.model.HostModel;
import io.fabricd.model.NetdevInfo;
import io.fabricd.model.PortAttrs;
import io.fabricd.model.RdmaPort;
import io.fabricd.diagnosis.Check;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.model.finding.Evidence;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Severity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code trust_mismatch} (warning): the port classifies traffic by the other field than the one
 * RoCE traffic is marked with. A PCP-trusting port puts untagged, DSCP-marked RoCE into priority 0
 * (no PFC there); a DSCP-trusting port ignores the VLAN PCP. The expected trust comes from, in order:
 * {@code diagnosis.roce.trust}; rdma_cm's default ToS for the port (a non-zero DSCP means RoCE is
 * DSCP-marked: expect dscp); the trust a strict majority of the host's other RoCE ports have. A
 * port whose trust is unknown (no DCB, no MLNX_OFED {@code qos/trust}) is not judged.
 */
public final class TrustMismatch extends Check.Declared {

    public TrustMismatch() {
        super("trust_mismatch");
    }

    @Override
    public List<Finding> evaluate(Inputs in, DiagnosisConfig config) {
        HostModel m = in.current();
        List<Finding> out = new ArrayList<>();
        Map<String, String> trustOf = new TreeMap<>();
        for (RdmaPort p : m.ports()) {
            NetdevInfo nd = Ports.netdev(m, p);
            if (Ports.ethernet(p) && nd != null && nd.trust() != null && p.inService()) {
                trustOf.put(p.device() + "/" + p.port(), nd.trust());
            }
        }
        for (RdmaPort p : m.ports()) {
            String trust = trustOf.get(p.device() + "/" + p.port());
            if (trust == null) {
                continue;
            }
            NetdevInfo nd = Ports.netdev(m, p);
            String expected = null;
            String rule = null;
            PortAttrs a = m.portAttrs(p.device(), p.port()).orElse(null);
            if (config.roce().trust() != null) {
                expected = config.roce().trust();
                rule = "config (diagnosis.roce.trust)";
            } else if (a != null && a.roceTos() != null && a.roceTos() >> 2 != 0) {
                expected = "dscp";
                rule = "rdma_cm default_roce_tos " + a.roceTos() + " marks RoCE with DSCP " + (a.roceTos() >> 2);
            } else {
                Map<String, Integer> votes = new TreeMap<>();
                trustOf.forEach((k, v) -> {
                    if (!k.equals(p.device() + "/" + p.port())) {
                        votes.merge(v, 1, Integer::sum);
                    }
                });
                int others = votes.values().stream().mapToInt(Integer::intValue).sum();
                for (var e : votes.entrySet()) {
                    if (e.getValue() * 2 > others) {
                        expected = e.getKey();
                        rule = e.getValue() + " of the host's " + others + " other RoCE ports with a known trust mode trust " + e.getKey();
                    }
                }
            }
            if (expected == null || expected.equals(trust)) {
                continue;
            }
            Evidence.Builder ev = Evidence.builder();
            ev.put("trust", trust);
            ev.put("trust_source", nd.trustSource());
            ev.put("expected", expected);
            ev.put("expected_because", rule);
            String fix = expected.equals("dscp")
                    ? "Trust DSCP: `mlnx_qos -i " + nd.name() + " --trust dscp` (MLNX_OFED) or add the DSCP APP map with "
                            + "`dcb app add dev " + nd.name() + " dscp-prio <dscp>:<prio>` (upstream mlx5 trusts DSCP once APP entries exist)."
                    : "Trust PCP: `mlnx_qos -i " + nd.name() + " --trust pcp` (MLNX_OFED) or remove the DSCP APP entries "
                            + "(`dcb app flush dev " + nd.name() + " dscp-prio`), and tag RoCE traffic with the VLAN PCP.";
            out.add(new Finding(id(), Severity.WARNING, Ports.subject(p),
                    nd.name() + " trusts " + trust + " but RoCE traffic is expected to be classified by " + expected, ev, fix));
        }
        return out;
    }
}
