package io.fabricd.probes;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Whom an agent probes, from the peers it knows and their racks (ToR labels):
 * <ol>
 * <li>every peer of its own rack — a full mesh that finds faulty NICs and local links (Pingmesh's
 *     intra-ToR list, R-Pingmesh's ToR-mesh), capped at {@code maxInRack};</li>
 * <li>rack-pair duty: for every other rack B, one host of this rack is chosen by rendezvous
 *     (highest random weight) hashing of (this rack → B); if that is this host, it probes one host
 *     of B, chosen the same way. Every ordered rack pair is covered by exactly one probe stream and
 *     each host carries about (racks − 1) / rack size of them;</li>
 * <li>{@code k} further peers of other racks by rendezvous hashing of (self, peer), for path
 *     diversity through the spine.</li>
 * </ol>
 * Rendezvous hashing keeps the plan stable under churn: a host joining or leaving changes only the
 * choices it wins or loses. Probes per host grow with rack size + racks / rack size + k, not with the
 * fleet. Peers without a rack label form one rack ("").
 */
public final class Planner {
    private Planner() {
    }

    /** A host: its id (stable: node name or address) and rack. */
    public record Peer(String id, String rack) {
    }

    public static List<Peer> plan(Peer self, List<Peer> candidates, int k, int maxInRack) {
        Map<String, List<Peer>> byRack = new HashMap<>();
        long selfHash = hash(self.id());
        for (Peer p : candidates) {
            if (!p.id().equals(self.id())) {
                byRack.computeIfAbsent(p.rack(), r -> new ArrayList<>()).add(p);
            }
        }
        Set<Peer> out = new LinkedHashSet<>();
        List<Peer> same = byRack.getOrDefault(self.rack(), List.of());
        out.addAll(top(same, selfHash, maxInRack));
        // rack-pair duty
        List<Peer> myRack = new ArrayList<>(same);
        myRack.add(self);
        for (Map.Entry<String, List<Peer>> e : byRack.entrySet()) {
            if (e.getKey().equals(self.rack())) {
                continue;
            }
            long pair = hash(self.rack() + "->" + e.getKey());
            Peer prober = top(myRack, pair, 1).get(0);
            if (prober.id().equals(self.id())) {
                out.add(top(e.getValue(), pair ^ selfHash, 1).get(0));
            }
        }
        // k more across racks
        List<Peer> others = new ArrayList<>();
        byRack.forEach((rack, ps) -> {
            if (!rack.equals(self.rack())) {
                others.addAll(ps);
            }
        });
        out.addAll(top(others, selfHash, k));
        List<Peer> sorted = new ArrayList<>(out);
        sorted.sort(Comparator.comparing(Peer::id));
        return sorted;
    }

    /** The n peers with the highest rendezvous weight for {@code key}. */
    private static List<Peer> top(List<Peer> peers, long key, int n) {
        if (n <= 0 || peers.isEmpty()) {
            return List.of();
        }
        if (n == 1) {
            Peer best = null;
            long bw = 0;
            for (Peer p : peers) {
                long w = weight(key, hash(p.id()));
                if (best == null || Long.compareUnsigned(w, bw) > 0 || (w == bw && p.id().compareTo(best.id()) < 0)) {
                    best = p;
                    bw = w;
                }
            }
            return List.of(best);
        }
        List<Peer> sorted = new ArrayList<>(peers);
        sorted.sort(Comparator.comparing((Peer p) -> weight(key, hash(p.id())), Long::compareUnsigned).reversed()
                .thenComparing(Peer::id));
        return sorted.subList(0, Math.min(n, sorted.size()));
    }

    /** 64-bit FNV-1a of a string. */
    static long hash(String s) {
        long h = 0xcbf29ce484222325L;
        for (byte x : s.getBytes(StandardCharsets.UTF_8)) {
            h ^= x & 0xff;
            h *= 0x100000001b3L;
        }
        return h;
    }

    /** The rendezvous weight of an item for a key: murmur3's finaliser over both hashes. */
    static long weight(long key, long item) {
        long h = key ^ Long.rotateLeft(item, 31) ^ 0x9e3779b97f4a7c15L;
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }
}
