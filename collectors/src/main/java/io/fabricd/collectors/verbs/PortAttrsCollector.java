package io.fabricd.collectors.verbs;

import io.fabricd.collectors.CollectContext;
import io.fabricd.collectors.Slices;
import io.fabricd.collectors.Stage;
import io.fabricd.collectors.kernel.HostReadException;
import io.fabricd.collectors.kernel.VerbsDevice;
import io.fabricd.collectors.netdev.NetdevSlice;
import io.fabricd.collectors.rdma.RdmaSlice;
import io.fabricd.model.NetdevInfo;
import io.fabricd.model.PortAttrs;
import io.fabricd.model.RdmaDevice;
import io.fabricd.model.RdmaPort;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Active and max MTU per port from verbs (ibv_query_port, or the verbs side-car); for RoCE ports
 * verbs cannot answer for, the active MTU the kernel computes from the netdev MTU (docs/spec/host-facts.md §2.2, §3.5:
 * iboe_get_mtu subtracts 96 bytes on mlx5, rxe subtracts RXE_MAX_HDR_LENGTH 80, then rounds down to
 * an IB MTU; max MTU 4096), marked "derived". Also rdma_cm's configfs defaults (docs/spec/host-facts.md §3.4; absent =
 * kernel defaults, not an error).
 */
public final class PortAttrsCollector extends Stage.Declared<VerbsSlice> {
    static final int[] IB_MTUS = {4096, 2048, 1024, 512, 256};

    public PortAttrsCollector() {
        super("verbs", VerbsSlice.class, RdmaSlice.class, NetdevSlice.class);
    }

    @Override
    public VerbsSlice collect(CollectContext ctx, Slices in) {
        List<NetdevInfo> netdevs = in.get(NetdevSlice.class).map(NetdevSlice::netdevs).orElse(List.of());
        List<PortAttrs> attrs = new ArrayList<>();
        Map<String, Long> maxQp = new HashMap<>();
        for (RdmaDevice d : in.get(RdmaSlice.class).map(RdmaSlice::devices).orElse(List.of())) {
            Optional<VerbsDevice> verbs = Optional.empty();
            try {
                verbs = ctx.source().kernel().verbs(d.name());
            } catch (HostReadException e) {
                ctx.error(e);
            }
            verbs.map(VerbsDevice::maxQp).ifPresent(q -> maxQp.put(d.name(), q));
            for (RdmaPort p : d.ports()) {
                Integer active = null;
                Integer max = null;
                String source = null;
                Integer gidLen = null;
                VerbsDevice.VerbsPort vp = verbs.map(v -> v.ports().get(p.port())).orElse(null);
                if (vp != null && vp.activeMtu() != null) {
                    active = vp.activeMtu();
                    max = vp.maxMtu();
                    gidLen = vp.gidTblLen();
                    source = "verbs";
                } else if ("Ethernet".equals(p.linkLayer()) && p.netdev() != null) {
                    Integer mtu = netdevs.stream().filter(n -> n.name().equals(p.netdev()))
                            .findFirst().map(NetdevInfo::mtu).orElse(null);
                    if (mtu != null) {
                        active = derivedActiveMtu(mtu, d.parent() != null ? 80 : 96);
                        max = 4096;
                        source = "derived";
                    }
                }
                String cfg = "sys/kernel/config/rdma_cm/" + d.name() + "/ports/" + p.port();
                String mode = ctx.optional(cfg + "/default_roce_mode").map(String::strip).orElse(null);
                Integer tos = ctx.optional(cfg + "/default_roce_tos").map(s -> {
                    try {
                        return Integer.parseInt(s.strip());
                    } catch (NumberFormatException e) {
                        ctx.error(cfg + "/default_roce_tos", "not a number: '" + s.strip() + "'");
                        return null;
                    }
                }).orElse(null);
                attrs.add(new PortAttrs(d.name(), p.port(), active, max, source, gidLen, mode, tos));
            }
        }
        return new VerbsSlice(attrs, maxQp);
    }

    /** The RoCE active MTU for a netdev MTU: the largest IB MTU ≤ mtu − overhead (0 when none fits). */
    public static int derivedActiveMtu(int netdevMtu, int overhead) {
        for (int m : IB_MTUS) {
            if (netdevMtu - overhead >= m) {
                return m;
            }
        }
        return 0;
    }
}
