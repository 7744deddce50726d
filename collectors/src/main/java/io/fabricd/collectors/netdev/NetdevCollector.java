package io.fabricd.collectors.netdev;

import io.fabricd.collectors.CollectContext;
import io.fabricd.collectors.Slices;
import io.fabricd.collectors.Stage;
import io.fabricd.collectors.kernel.HostReadException;
import io.fabricd.collectors.rdma.RdmaSlice;
import io.fabricd.model.NetdevInfo;
import io.fabricd.model.RdmaPort;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The netdevs bound to RDMA ports (GID ndevs, the PCI function's net/, rxe's parent; docs/spec/host-facts.md §2.1-2.2):
 * MTU, operstate, carrier, speed, type, driver, and MLNX_OFED's qos/trust and ecn knobs when present.
 * speed and carrier fail with EINVAL while a netdev is administratively down: that is a state, not
 * an error.
 */
public final class NetdevCollector extends Stage.Declared<NetdevSlice> {

    public NetdevCollector() {
        super("netdev", NetdevSlice.class, RdmaSlice.class);
    }

    @Override
    public NetdevSlice collect(CollectContext ctx, Slices in) {
        TreeSet<String> names = new TreeSet<>();
        for (RdmaPort p : in.get(RdmaSlice.class).map(RdmaSlice::ports).orElse(List.of())) {
            if (p.netdev() != null) {
                names.add(p.netdev());
            }
        }
        List<NetdevInfo> out = new ArrayList<>();
        for (String n : names) {
            String base = "sys/class/net/" + n;
            // mtu read first: a netdev that is gone shows as its folder missing, not as each file
            // (its folder looked up only then: one lookup less per netdev per collection)
            Integer mtu;
            try {
                mtu = parseInt(ctx, base + "/mtu", ctx.source().readLine(base + "/mtu"));
            } catch (HostReadException e) {
                if (e.isMissing() && !ctx.source().exists(base)) {
                    ctx.error(base, "ENOENT");
                    continue;
                }
                ctx.error(e);
                mtu = null;
            }
            String oper = ctx.optional(base + "/operstate").map(String::strip).orElse(null);
            Integer carrier = quiet(ctx, base + "/carrier").map(s -> parseInt(ctx, base + "/carrier", s)).orElse(null);
            Long speed = quiet(ctx, base + "/speed").map(s -> {
                Integer v = parseInt(ctx, base + "/speed", s);
                return v == null || v < 0 ? null : v.longValue();
            }).orElse(null);
            String trust = ctx.optional(base + "/qos/trust").map(String::strip).orElse(null);
            // kernels since 3.15; a flap between two collections leaves the carrier as it was but
            // this count two higher
            Long carrierChanges = ctx.optional(base + "/carrier_changes").map(s -> parseInt(ctx, base + "/carrier_changes", s))
                    .filter(v -> v >= 0).map(Integer::longValue).orElse(null);
            Integer type = ctx.optional(base + "/type").map(s -> parseInt(ctx, base + "/type", s)).orElse(null);
            String driver = ctx.linkName(base + "/device/driver");
            out.add(new NetdevInfo(n, mtu, oper, carrier, speed, type, driver, null, null, null,
                    trust, trust != null ? "qos/trust" : null, ecn(ctx, base + "/ecn/roce_np/enable"),
                    ecn(ctx, base + "/ecn/roce_rp/enable"), carrierChanges));
        }
        return new NetdevSlice(out);
    }

    /** A read whose EINVAL is a state (speed and carrier of a netdev that is down). */
    private static Optional<String> quiet(CollectContext ctx, String path) {
        try {
            return Optional.of(ctx.source().readLine(path));
        } catch (HostReadException e) {
            if (!e.isMissing() && !"EINVAL".equals(e.errno())) {
                ctx.error(e);
            }
            return Optional.empty();
        }
    }

    /** The ECN knob of each priority the driver created in {@code dir} ({@code ecn/roce_np/enable/3}). */
    private static TreeMap<Integer, Boolean> ecn(CollectContext ctx, String dir) {
        TreeMap<Integer, Boolean> m = new TreeMap<>();
        for (String p : ctx.listOptional(dir)) {
            int prio;
            try {
                prio = Integer.parseInt(p);
            } catch (NumberFormatException e) {
                ctx.error(dir + "/" + p, "not a priority");
                continue;
            }
            ctx.optional(dir + "/" + p).map(String::strip).ifPresent(v -> m.put(prio, v.equals("1")));
        }
        return m;
    }

    static Integer parseInt(CollectContext ctx, String path, String s) {
        try {
            return Integer.parseInt(s.strip());
        } catch (NumberFormatException e) {
            ctx.error(path, "not a number: '" + s.strip() + "'");
            return null;
        }
    }
}
