package io.fabricd.diagnosis.checks;

import io.fabricd.model.Counters;
import io.fabricd.model.DcbState;
import io.fabricd.model.HostModel;
import io.fabricd.model.NetdevInfo;
import io.fabricd.model.PortAttrs;
import io.fabricd.model.RdmaPort;
import io.fabricd.diagnosis.DiagnosisConfig;

/**
 * The 802.1p priority a RoCE port's RDMA traffic uses, and which rule chose it. In order:
 * <ol>
 * <li>{@code config}: {@code diagnosis.roce.priority};</li>
 * <li>{@code default_roce_tos}: rdma_cm's default ToS for the port (DSCP = ToS &gt;&gt; 2) mapped
 *     through the netdev's DCB DSCP APP table (mlx5 maps an absent DSCP to DSCP &gt;&gt; 3);
 *     only when the port trusts DSCP (APP entries present), since a PCP-trusting port ignores DSCP;</li>
 * <li>{@code traffic}: the priority whose byte counters carry (at least half of) the port's RDMA
 *     bytes ({@code rx/tx_vport_rdma_*_bytes} against {@code rx/tx_prioN_bytes});</li>
 * <li>{@code default}: 3, the common RoCE default (NVIDIA's and NCCL's guides).</li>
 * </ol>
 *
 * @param rule   config, default_roce_tos, traffic or default
 * @param detail how the rule got there, for the evidence
 */
public record RdmaPriority(int priority, String rule, String detail) {
    public static final int COMMON_DEFAULT = 3;

    public static RdmaPriority of(HostModel m, RdmaPort p, NetdevInfo nd, DiagnosisConfig config) {
        if (config.roce().priority() != null) {
            return new RdmaPriority(config.roce().priority(), "config", "diagnosis.roce.priority");
        }
        PortAttrs a = m.portAttrs(p.device(), p.port()).orElse(null);
        DcbState dcb = nd == null ? null : nd.dcb();
        if (a != null && a.roceTos() != null && a.roceTos() >> 2 != 0 && dcb != null && dcb.hasDscpApp()) {
            int dscp = a.roceTos() >> 2;
            int prio = dcb.app().stream().filter(e -> "dscp".equals(e.selector()) && e.protocol() == dscp)
                    .mapToInt(DcbState.AppEntry::priority).findFirst().orElse(dscp >> 3);
            return new RdmaPriority(prio, "default_roce_tos",
                    "rdma_cm default_roce_tos " + a.roceTos() + " = DSCP " + dscp + ", DCB APP maps it to priority " + prio);
        }
        if (nd != null) {
            long rdma = sum(nd, "rx_vport_rdma_unicast_bytes", "tx_vport_rdma_unicast_bytes",
                    "rx_vport_rdma_multicast_bytes", "tx_vport_rdma_multicast_bytes");
            int best = -1;
            double bestBytes = 0;
            for (int prio = 0; prio < 8; prio++) {
                double b = Counters.toDouble(sum(nd, "rx_prio" + prio + "_bytes", "tx_prio" + prio + "_bytes"));
                if (b > bestBytes) {
                    best = prio;
                    bestBytes = b;
                }
            }
            if (rdma != 0 && best >= 0 && bestBytes >= Counters.toDouble(rdma) / 2) {
                return new RdmaPriority(best, "traffic", "priority " + best + " carries the most bytes ("
                        + (long) bestBytes + ") against " + Long.toUnsignedString(rdma) + " RDMA bytes of the port");
            }
        }
        return new RdmaPriority(COMMON_DEFAULT, "default", "no configured priority, DSCP mapping or RDMA traffic to go by: "
                + "the common default 3 (set diagnosis.roce.priority if RDMA uses another)");
    }

    private static long sum(NetdevInfo nd, String... stats) {
        long s = 0;
        for (String k : stats) {
            Long v = nd.stats().get(k);
            if (v != null) {
                s += v;
            }
        }
        return s;
    }
}
