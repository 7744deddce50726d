package io.fabricd.collectors.netdev;

import io.fabricd.collectors.CollectContext;
import io.fabricd.collectors.Collector;
import io.fabricd.collectors.model.NetdevInfo;
import io.fabricd.collectors.model.RdmaPort;
import io.fabricd.collectors.source.HostReadException;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The netdevs bound to RDMA ports (GID ndevs, the PCI function's net/, rxe's parent; facts §2.1-2.2):
 * MTU, operstate, carrier, speed, type, driver, and MLNX_OFED's qos/trust and ecn knobs when present.
 * speed and carrier fail with EINVAL while a netdev is administratively down: that is a state, not
 * an error.
 */
public final class NetdevCollector implements Collector {

    @Override
    public String name() {
        return "netdev";
    }

    @Override
    public void collect(CollectContext ctx) {
        TreeSet<String> names = new TreeSet<>();
        java.util.List<String> bound = new java.util.ArrayList<>();
        for (RdmaPort p : ctx.model().ports()) {
            if (p.netdev() != null) {
                names.add(p.netdev());
                bound.add(p.device() + "/" + p.port() + "=" + p.netdev());
            }
        }
        // a netdev renamed or bound to another port drops what is kept (files kept open by name too)
        ctx.hardware("netdevs of RDMA ports", bound);
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
            Integer type = ctx.stable(base + "/type").map(s -> parseInt(ctx, base + "/type", s)).orElse(null);
            String driver = null;
            if (ctx.stableExists(base + "/device/driver")) {
                try {
                    String real = ctx.stableRealPath(base + "/device/driver");
                    driver = real.substring(real.lastIndexOf('/') + 1);
                } catch (HostReadException e) {
                    ctx.error(e);
                }
            }
            String trust = ctx.optional(base + "/qos/trust").map(String::strip).orElse(null);
            ctx.model().putNetdev(new NetdevInfo(n, mtu, oper, carrier, speed, type, driver, null, null, null,
                    trust, trust != null ? "qos/trust" : null, ecn(ctx, base + "/ecn/roce_np/enable"),
                    ecn(ctx, base + "/ecn/roce_rp/enable")));
        }
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

    private static TreeMap<Integer, Boolean> ecn(CollectContext ctx, String dir) {
        TreeMap<Integer, Boolean> m = new TreeMap<>();
        for (String p : ctx.listOptional(dir)) {
            try {
                int prio = Integer.parseInt(p);
                ctx.optional(dir + "/" + p).map(String::strip).ifPresent(v -> m.put(prio, v.equals("1")));
            } catch (NumberFormatException e) {
                ctx.error(dir + "/" + p, "not a priority");
            }
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
