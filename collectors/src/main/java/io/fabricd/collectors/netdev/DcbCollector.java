package io.fabricd.collectors.netdev;

import io.fabricd.collectors.CollectContext;
import io.fabricd.collectors.Slices;
import io.fabricd.collectors.Stage;
import io.fabricd.model.DcbState;
import io.fabricd.model.NetdevInfo;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * DCB state of every Ethernet RDMA netdev (RTM_GETDCB / DCB_CMD_IEEE_GET live, the dcb side-car in a
 * snapshot; docs/spec/host-facts.md §3.1) and the trust mode it implies: MLNX_OFED's qos/trust when present, else
 * DSCP when the APP table holds DSCP entries (upstream mlx5, docs/spec/host-facts.md §3.2), else PCP when DCB answers.
 * A netdev without DCB support (veth, virtio) is recorded as unsupported, not as an error; a
 * netdev whose DCB state is not known (a snapshot without its DCB side-car) keeps none: unknown is
 * not "unsupported".
 */
public final class DcbCollector extends Stage.Declared<DcbSlice> {

    public DcbCollector() {
        super("dcb", DcbSlice.class, NetdevSlice.class);
    }

    @Override
    public DcbSlice collect(CollectContext ctx, Slices in) {
        Map<String, DcbSlice.Dcb> out = new HashMap<>();
        for (NetdevInfo n : in.get(NetdevSlice.class).map(NetdevSlice::netdevs).orElse(List.of())) {
            if (!n.ethernet()) {
                continue;
            }
            DcbState dcb = ctx.readOr(() -> ctx.source().kernel().dcb(n.name()), null);
            if (dcb == null) {
                continue;
            }
            String trust = n.trust();
            String source = n.trustSource();
            if (trust == null && dcb.supported()) {
                trust = dcb.hasDscpApp() ? "dscp" : "pcp";
                source = "dcb-app";
            }
            out.put(n.name(), new DcbSlice.Dcb(dcb, trust, source));
        }
        return new DcbSlice(out);
    }
}
