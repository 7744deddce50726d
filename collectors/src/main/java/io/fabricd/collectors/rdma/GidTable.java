package io.fabricd.collectors.rdma;

import io.fabricd.collectors.CollectContext;
import io.fabricd.collectors.model.Gid;
import io.fabricd.collectors.source.HostReadException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** A port's GID table (facts §1), for {@link RdmaCollector}: populated slots, their types and netdevs. */
final class GidTable {
    private static final String ZERO_GID = "0000:0000:0000:0000:0000:0000:0000:0000";

    private GidTable() {
    }

    /**
     * The port's GID table. A full scan (every slot; a RoCE table has 255 or more, most of them
     * zero) runs with the identity refresh; in between, only the slots that scan found populated
     * are read (a changed or cleared GID shows at once, a GID in a new slot within
     * {@code collection.identity_refresh}), and a slot's type and netdev are read again only when
     * its GID changes.
     */
    static List<Gid> read(CollectContext ctx, String base) {
        // the table's size is the driver's: kept, and a failing listing reported on every collection
        List<String> table = ctx.stableListOptional(base + "/gids");
        List<java.util.Map<String, Object>> scan = new ArrayList<>(1);
        List<String> slots = ctx.derived("gid-slots:" + base, () -> populatedSlots(ctx, base, table, scan));
        java.util.Map<String, Object> gids = scan.isEmpty() ? ctx.source().readAll(base + "/gids", slots) : scan.get(0);
        List<Gid> out = new ArrayList<>();
        List<String> fresh = new ArrayList<>();
        for (String i : slots) {
            Object g = gids.get(i);
            if (g instanceof HostReadException e) {
                if (!e.isMissing()) {
                    ctx.error(e);
                }
            } else if (g instanceof String s && populated(s) && !ctx.isDerived(attrsKey(base, i, s))) {
                fresh.add(i);
            }
        }
        // gid_attrs of empty slots fail with EINVAL by design: read only the populated ones
        java.util.Map<String, Object> types = fresh.isEmpty() ? java.util.Map.of() : ctx.source().readAll(base + "/gid_attrs/types", fresh);
        java.util.Map<String, Object> ndevs = fresh.isEmpty() ? java.util.Map.of() : ctx.source().readAll(base + "/gid_attrs/ndevs", fresh);
        for (String i : slots) {
            if (!(gids.get(i) instanceof String s) || !populated(s)) {
                continue;
            }
            // {type or its failure, netdev}; IB GIDs have no netdev: that read fails by design
            Object[] attrs = ctx.derived(attrsKey(base, i, s), () -> new Object[] {
                types.get(i) instanceof String t ? t.strip() : types.get(i),
                ndevs.get(i) instanceof String n ? n.strip() : null});
            String type = null;
            if (attrs[0] instanceof String t) {
                type = t;
            } else if (attrs[0] instanceof HostReadException e && !e.isMissing()) {
                ctx.error(e);
            }
            out.add(new Gid(RdmaCollector.portNumber(i), s.strip(), type, (String) attrs[1]));
        }
        return out;
    }

    private static String attrsKey(String base, String slot, String gid) {
        return "gid-attrs:" + base + "/" + slot + "=" + gid.strip();
    }

    private static boolean populated(String gid) {
        String s = gid.strip();
        return !s.isEmpty() && !s.equals(ZERO_GID);
    }

    /**
     * Every slot of the table read once: the indices of the populated ones and of those whose read
     * failed (so the failure is reported on every collection), in slot order. The texts go to
     * {@code scan}, so the collection that scans does not read them twice.
     */
    private static List<String> populatedSlots(CollectContext ctx, String base, List<String> table,
                                               List<java.util.Map<String, Object>> scan) {
        List<String> idx = new ArrayList<>(table);
        idx.removeIf(s -> RdmaCollector.portNumber(s) < 0);
        idx.sort(Comparator.comparingInt(RdmaCollector::portNumber));
        java.util.Map<String, Object> gids = ctx.source().readAll(base + "/gids", idx);
        scan.add(gids);
        List<String> slots = new ArrayList<>();
        for (String i : idx) {
            Object g = gids.get(i);
            if (g instanceof String s ? populated(s) : g instanceof HostReadException e && !e.isMissing()) {
                slots.add(i);
            }
        }
        return List.copyOf(slots);
    }
}
