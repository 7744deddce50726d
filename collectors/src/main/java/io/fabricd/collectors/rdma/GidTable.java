package io.fabricd.collectors.rdma;

import io.fabricd.collectors.CollectContext;
import io.fabricd.model.Gid;
import io.fabricd.collectors.source.FileRead;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/** A port's GID table (docs/spec/host-facts.md §1), for {@link RdmaCollector}: populated slots, their types and netdevs. */
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
        List<Map<String, FileRead>> scan = new ArrayList<>(1);
        List<String> slots = ctx.derived("gid-slots:" + base, () -> populatedSlots(ctx, base, table, scan));
        Map<String, FileRead> gids = scan.isEmpty() ? ctx.source().readEach(base + "/gids", slots) : scan.get(0);
        List<String> fresh = new ArrayList<>();
        for (String i : slots) {
            FileRead g = gids.get(i);
            if (!g.ok()) {
                if (!g.failure().isMissing()) {
                    ctx.error(g.failure());
                }
            } else if (populated(g.text()) && !ctx.isDerived(attrsKey(base, i, g.text()))) {
                fresh.add(i);
            }
        }
        // gid_attrs of empty slots fail with EINVAL by design: read only the populated ones
        Map<String, FileRead> types = fresh.isEmpty() ? Map.of() : ctx.source().readEach(base + "/gid_attrs/types", fresh);
        Map<String, FileRead> ndevs = fresh.isEmpty() ? Map.of() : ctx.source().readEach(base + "/gid_attrs/ndevs", fresh);
        List<Gid> out = new ArrayList<>();
        for (String i : slots) {
            FileRead g = gids.get(i);
            if (!g.ok() || !populated(g.text())) {
                continue;
            }
            // IB GIDs have no netdev: that read fails by design
            Attrs attrs = ctx.derived(attrsKey(base, i, g.text()), () -> new Attrs(types.get(i), ndevs.get(i)));
            if (attrs.type() != null && !attrs.type().ok() && !attrs.type().failure().isMissing()) {
                ctx.error(attrs.type().failure());
            }
            out.add(new Gid(RdmaCollector.portNumber(i), g.text().strip(), attrs.typeName(), attrs.netdev()));
        }
        return out;
    }

    /** A populated slot's type (its read) and netdev, kept while its GID stays. */
    private record Attrs(FileRead type, String netdev) {
        Attrs(FileRead type, FileRead ndev) {
            this(type, ndev != null && ndev.ok() ? ndev.text().strip() : null);
        }

        String typeName() {
            return type != null && type.ok() ? type.text().strip() : null;
        }
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
                                               List<Map<String, FileRead>> scan) {
        List<String> idx = new ArrayList<>(table);
        idx.removeIf(s -> RdmaCollector.portNumber(s) < 0);
        idx.sort(Comparator.comparingInt(RdmaCollector::portNumber));
        Map<String, FileRead> gids = ctx.source().readEach(base + "/gids", idx);
        scan.add(gids);
        List<String> slots = new ArrayList<>();
        for (String i : idx) {
            FileRead g = gids.get(i);
            if (g.ok() ? populated(g.text()) : !g.failure().isMissing()) {
                slots.add(i);
            }
        }
        return List.copyOf(slots);
    }
}
