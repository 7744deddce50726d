package io.fabricd.probes.mesh;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
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

    /** A host: its id (stable: node name or address), rack, and the hash of its id (computed once). */
    public record Peer(String id, String rack, long idHash) {
        public Peer(String id, String rack) {
            this(id, rack, hash(id));
        }
    }

    public static List<Peer> plan(Peer self, List<Peer> candidates, int k, int maxInRack) {
        Map<String, List<Peer>> byRack = new HashMap<>();
        long selfHash = self.idHash();
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
        List<Peer> others = byRack.entrySet().stream().filter(e -> !e.getKey().equals(self.rack()))
                .flatMap(e -> e.getValue().stream()).toList();
        out.addAll(top(others, selfHash, k));
        return out.stream().sorted(Comparator.comparing(Peer::id)).toList();
    }

    /**
     * The n peers with the highest rendezvous weight for {@code key} (ties: the smaller id), in
     * that order. One pass with a heap of n: O(peers × log n), each weight computed once.
     */
    private static List<Peer> top(List<Peer> peers, long key, int n) {
        if (n <= 0 || peers.isEmpty()) {
            return List.of();
        }
        record Weighted(Peer peer, long weight) {
        }
        Comparator<Weighted> better = Comparator.comparing(Weighted::weight, Long::compareUnsigned)
                .thenComparing(w -> w.peer().id(), Comparator.reverseOrder());
        PriorityQueue<Weighted> worstFirst = new PriorityQueue<>(n + 1, better);
        for (Peer p : peers) {
            Weighted w = new Weighted(p, weight(key, p.idHash()));
            if (worstFirst.size() < n) {
                worstFirst.add(w);
            } else if (better.compare(w, worstFirst.peek()) > 0) {
                worstFirst.poll();
                worstFirst.add(w);
            }
        }
        List<Weighted> best = new ArrayList<>(worstFirst);
        best.sort(better.reversed());
        return best.stream().map(Weighted::peer).toList();
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
