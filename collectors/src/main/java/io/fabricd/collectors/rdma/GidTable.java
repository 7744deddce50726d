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
     * The port's populated GIDs, every slot read on every collection: a GID that appears, changes
     * or goes (and with it {@code roce_gid_missing}) shows at the next collection.
     */
    static List<Gid> read(CollectContext ctx, String base) {
        List<String> slots = new ArrayList<>(ctx.listOptional(base + "/gids"));
        slots.removeIf(s -> RdmaCollector.portNumber(s) < 0);
        slots.sort(Comparator.comparingInt(RdmaCollector::portNumber));
        Map<String, FileRead> gids = ctx.source().readEach(base + "/gids", slots);
        List<String> populated = new ArrayList<>();
        for (String i : slots) {
            FileRead g = gids.get(i);
            if (!g.ok()) {
                if (!g.failure().isMissing()) {
                    ctx.error(g.failure());
                }
            } else if (populated(g.text())) {
                populated.add(i);
            }
        }
        // gid_attrs of empty slots fail with EINVAL by design: read only the populated ones
        Map<String, FileRead> types = populated.isEmpty() ? Map.of() : ctx.source().readEach(base + "/gid_attrs/types", populated);
        Map<String, FileRead> ndevs = populated.isEmpty() ? Map.of() : ctx.source().readEach(base + "/gid_attrs/ndevs", populated);
        List<Gid> out = new ArrayList<>();
        for (String i : populated) {
            FileRead type = types.get(i);
            if (!type.ok() && !type.failure().isMissing()) {
                ctx.error(type.failure());
            }
            // IB GIDs have no netdev: that read fails by design
            FileRead ndev = ndevs.get(i);
            out.add(new Gid(RdmaCollector.portNumber(i), gids.get(i).text().strip(), type.ok() ? type.text().strip() : null,
                    ndev.ok() ? ndev.text().strip() : null));
        }
        return out;
    }

    private static boolean populated(String gid) {
        String s = gid.strip();
        return !s.isEmpty() && !s.equals(ZERO_GID);
    }
}
