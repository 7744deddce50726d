package io.fabricd.collectors.netdev;

import io.fabricd.collectors.CollectContext;
import io.fabricd.collectors.Collector;
import io.fabricd.model.NetdevInfo;
import io.fabricd.model.RdmaPort;
import io.fabricd.collectors.source.HostReadException;
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
public final class NetdevCollector implements Collector {

    @Override
    public String name() {
        return "netdev";
    }

    @Override
    public List<String> needs() {
        return List.of("rdma");
    }

    @Override
    public void collect(CollectContext ctx) {
        TreeSet<String> names = new TreeSet<>();
        List<String> bound = new ArrayList<>();
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
            Facts f = ctx.stableGroup("netdev:" + n, c -> facts(c, base));
            // mtu read first: a netdev that is gone shows as its folder missing, not as each file
            // (its folder looked up only then: one lookup less per netdev per collection)
            Integer mtu;
            try {
                mtu = parseInt(ctx, f.mtu(), ctx.source().readLine(f.mtu()));
            } catch (HostReadException e) {
                if (e.isMissing() && !ctx.source().exists(base)) {
                    ctx.error(base, "ENOENT");
                    continue;
                }
                ctx.error(e);
                mtu = null;
            }
            String oper = ctx.optional(f.operstate()).map(String::strip).orElse(null);
            Integer carrier = quiet(ctx, f.carrier()).map(s -> parseInt(ctx, f.carrier(), s)).orElse(null);
            Long speed = quiet(ctx, f.speed()).map(s -> {
                Integer v = parseInt(ctx, f.speed(), s);
                return v == null || v < 0 ? null : v.longValue();
            }).orElse(null);
            String trust = ctx.optional(f.trust()).map(String::strip).orElse(null);
            // kernels since 3.15; a flap between two collections leaves the carrier as it was but
            // this count two higher
            Long carrierChanges = ctx.optional(f.carrierChanges()).map(s -> parseInt(ctx, f.carrierChanges(), s))
                    .filter(v -> v >= 0).map(Integer::longValue).orElse(null);
            ctx.model().putNetdev(new NetdevInfo(n, mtu, oper, carrier, speed, f.type(), f.driver(), null, null, null,
                    trust, trust != null ? "qos/trust" : null, ecn(ctx, f.np()), ecn(ctx, f.rp()), carrierChanges));
        }
    }

    /** One ECN priority file ({@code ecn/roce_np/enable/3}): its priority and path. */
    private record Prio(int prio, String path) {
    }

    /**
     * A netdev's kept facts (type, driver, the ECN priorities its driver created) and the paths read
     * on every collection, built once and kept as one group.
     */
    private record Facts(String mtu, String operstate, String carrier, String carrierChanges, String speed, String trust,
                         Integer type, String driver, List<Prio> np, List<Prio> rp) {
    }

    private static Facts facts(CollectContext ctx, String base) {
        Integer type = ctx.stable(base + "/type").map(s -> parseInt(ctx, base + "/type", s)).orElse(null);
        String driver = ctx.stableLinkName(base + "/device/driver");
        return new Facts(base + "/mtu", base + "/operstate", base + "/carrier", base + "/carrier_changes", base + "/speed", base + "/qos/trust",
                type, driver, prios(ctx, base + "/ecn/roce_np/enable"), prios(ctx, base + "/ecn/roce_rp/enable"));
    }

    /** The priority files of an ECN folder: the driver creates them with the netdev, so their names are kept. */
    private static List<Prio> prios(CollectContext ctx, String dir) {
        List<Prio> out = new ArrayList<>();
        for (String p : ctx.stableListOptional(dir)) {
            try {
                out.add(new Prio(Integer.parseInt(p), dir + "/" + p));
            } catch (NumberFormatException e) {
                ctx.error(dir + "/" + p, "not a priority");
            }
        }
        return List.copyOf(out);
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

    private static TreeMap<Integer, Boolean> ecn(CollectContext ctx, List<Prio> prios) {
        TreeMap<Integer, Boolean> m = new TreeMap<>();
        for (Prio p : prios) {
            ctx.optional(p.path()).map(String::strip).ifPresent(v -> m.put(p.prio(), v.equals("1")));
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
