package io.fabricd.collectors.netdev;

import io.fabricd.collectors.CollectContext;
import io.fabricd.collectors.Collector;
import io.fabricd.model.DcbState;
import io.fabricd.model.NetdevInfo;
import io.fabricd.collectors.source.HostReadException;
import java.util.List;

/**
 * DCB state of every Ethernet RDMA netdev (RTM_GETDCB / DCB_CMD_IEEE_GET live, the dcb side-car in a
 * snapshot; docs/spec/host-facts.md §3.1) and the trust mode it implies: MLNX_OFED's qos/trust when present, else
 * DSCP when the APP table holds DSCP entries (upstream mlx5, docs/spec/host-facts.md §3.2), else PCP when DCB answers.
 * A netdev without DCB support (veth, virtio) is recorded as unsupported, not as an error; a
 * netdev whose DCB state is not known (a snapshot without its DCB side-car) keeps none: unknown is
 * not "unsupported".
 */
public final class DcbCollector implements Collector {

    @Override
    public String name() {
        return "dcb";
    }

    @Override
    public List<String> needs() {
        return List.of("netdev");
    }

    @Override
    public void collect(CollectContext ctx) {
        for (NetdevInfo n : ctx.model().netdevs()) {
            if (!n.ethernet()) {
                continue;
            }
            DcbState dcb;
            try {
                dcb = ctx.source().kernel().dcb(n.name());
            } catch (HostReadException e) {
                if (!e.isMissing()) {
                    ctx.error(e);
                }
                continue;
            }
            String trust = n.trust();
            String source = n.trustSource();
            if (trust == null && dcb.supported()) {
                trust = dcb.hasDscpApp() ? "dscp" : "pcp";
                source = "dcb-app";
            }
            String t = trust;
            String src = source;
            ctx.model().updateNetdev(n.name(), x -> x.withDcb(dcb, t, src));
        }
    }
}
