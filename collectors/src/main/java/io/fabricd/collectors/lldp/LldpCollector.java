package io.fabricd.collectors.lldp;

import io.fabricd.collectors.CollectContext;
import io.fabricd.collectors.Slices;
import io.fabricd.collectors.Stage;
import io.fabricd.collectors.kernel.HostReadException;
import io.fabricd.collectors.netdev.NetdevSlice;
import io.fabricd.collectors.rdma.RdmaSlice;
import io.fabricd.model.Neighbor;
import io.fabricd.model.NetdevInfo;
import io.fabricd.model.RdmaPort;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The switch port each RDMA netdev is cabled to, as LLDP announces it: lldpd's neighbours
 * ({@link io.fabricd.collectors.kernel.KernelQueries#lldpNeighbors}: lldpcli live, the side-car
 * {@code fabricd/lldp/neighbors.json} in a snapshot), each tied to its RDMA device and port through
 * the netdev. Netdevs that carry no RDMA port (a management interface) are left out. No lldpd: no
 * neighbour, and nothing recorded (unknown). Output that is not lldpcli's JSON fails this stage alone,
 * with an error saying what is wrong.
 *
 * <p>A neighbour counts as evidence ({@link Neighbor#stable()}) only when it is the one neighbour on
 * its netdev and either lldpd has held it for {@link Neighbor#STABLE_SECONDS} (lldpd restarts that
 * age whenever a frame from the neighbour differs from the last one) or the agent has seen the same
 * chassis, port and names for {@link NeighborHistory#STABLE_COLLECTIONS} collections in a row; once the
 * agent has seen it change, only the agent's own count settles it. A neighbour that changes is still
 * reported, with the count of changes the agent saw. Announced names that are not names
 * ({@link NeighborNames}) are not used, and recorded as this stage's errors.
 */
public final class LldpCollector extends Stage.Declared<LldpSlice> {
    static final String SIDE_CAR = "fabricd/lldp/neighbors.json";
    private final NeighborHistory history = new NeighborHistory();

    public LldpCollector() {
        super("lldp", LldpSlice.class, NetdevSlice.class, RdmaSlice.class);
    }

    @Override
    public LldpSlice collect(CollectContext ctx, Slices in) {
        String from = ctx.source().isSnapshot() ? SIDE_CAR : "lldpcli -f json show neighbors details";
        Optional<String> text;
        try {
            text = ctx.source().kernel().lldpNeighbors();
        } catch (HostReadException e) {
            ctx.error(e.path(), e.getMessage().substring(e.path().length() + 2));
            return new LldpSlice(List.of());
        }
        if (text.isEmpty()) {
            return new LldpSlice(List.of());
        }
        List<LldpJson.Announcement> all;
        try {
            all = LldpJson.parse(text.get());
        } catch (LldpJson.Malformed e) {
            ctx.error(from, CollectContext.FATAL + "not lldpcli -f json output: " + e.getMessage());
            return null;
        }
        Map<String, RdmaPort> ports = new HashMap<>();
        in.get(RdmaSlice.class).ifPresent(r -> r.ports().stream().filter(p -> p.netdev() != null)
                .forEach(p -> ports.putIfAbsent(p.netdev(), p)));
        Set<String> rdmaNetdevs = new TreeSet<>(ports.keySet());
        in.get(NetdevSlice.class).ifPresent(n -> n.netdevs().stream().map(NetdevInfo::name).forEach(rdmaNetdevs::add));
        Map<String, List<LldpJson.Announcement>> byNetdev = new LinkedHashMap<>();
        for (LldpJson.Announcement a : all) {
            if (rdmaNetdevs.contains(a.netdev())) {
                byNetdev.computeIfAbsent(a.netdev(), k -> new ArrayList<>()).add(a);
            }
        }
        List<Neighbor> out = new ArrayList<>();
        byNetdev.forEach((netdev, seen) -> out.add(neighbor(ctx, from, netdev, seen, ports.get(netdev))));
        return new LldpSlice(out);
    }

    private Neighbor neighbor(CollectContext ctx, String from, String netdev, List<LldpJson.Announcement> seen, RdmaPort port) {
        // several neighbours at once (a cable moved, a hub, a stale entry): the latest is reported, none is evidence
        LldpJson.Announcement a = seen.stream()
                .min(Comparator.comparing(x -> x.ageSeconds() == null ? Long.MAX_VALUE : x.ageSeconds())).orElseThrow();
        NeighborNames names = NeighborNames.of(a);
        if (!names.refused().isEmpty()) {
            ctx.error(from, "the neighbour on " + netdev + " announces " + String.join(" and ", names.refused())
                    + ", not a name (letters, digits and . _ - : /, up to 253): not used; check what sends LLDP on that cable");
        }
        Neighbor n = new Neighbor(netdev, port == null ? null : port.device(), port == null ? null : port.port(), names.sysName(),
                names.switchPort(), names.portDescr(), names.chassisId(), names.mauType(), MauSpeed.mbps(names.mauType()), a.ageSeconds(), 0,
                false, "lldp");
        boolean single = seen.stream().map(LldpJson.Announcement::identity).distinct().count() == 1;
        NeighborHistory.State h = history.seen(netdev, single ? a.identity() : null);
        // after a change the agent saw, lldpd's age alone is not enough: the agent's own count must say so too
        boolean old = !h.afterChange() && a.ageSeconds() != null && a.ageSeconds() >= Neighbor.STABLE_SECONDS
                || h.inARow() >= NeighborHistory.STABLE_COLLECTIONS;
        return n.withHistory(h.changes(), single && old);
    }
}
