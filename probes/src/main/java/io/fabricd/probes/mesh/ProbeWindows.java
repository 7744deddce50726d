package io.fabricd.probes.mesh;

import io.fabricd.model.probe.ProbeResults;
import io.fabricd.probes.ProbeResult;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The last {@code window} probe rounds per peer, transport and size, and the MTUs of the verbs
 * paths, handed out as a {@link ProbeResults} for the checks to judge (and the preflight gate: the
 * peers' median and 90th percentile hold are its evidence of a host slow to answer). Thread-safe.
 */
public final class ProbeWindows {
    private final int window;
    private final Map<String, Deque<ProbeResult>> rounds = new TreeMap<>();
    private final Map<String, String> racks = new TreeMap<>();
    /** The host name each peer's endpoint gave, by peer (its HOST:PORT). */
    private final Map<String, String> hosts = new TreeMap<>();
    private final Map<String, ProbeResults.PathMtu> mtus = new TreeMap<>();

    public ProbeWindows(int window) {
        this.window = window;
    }

    /** @param host the host name the peer's endpoint gave; null when not known */
    public synchronized void record(ProbeResult r, String rack, String host) {
        if (host != null) {
            hosts.put(r.peer(), host);
        }
        Deque<ProbeResult> d = rounds.computeIfAbsent(r.peer() + "|" + r.transport() + "|" + r.size(), x -> new ArrayDeque<>());
        d.addLast(r);
        while (d.size() > window) {
            d.removeFirst();
        }
        racks.put(r.peer(), rack == null ? "" : rack);
    }

    /** The active MTUs of the two ends of a verbs path (peers report theirs in the endpoint). */
    public synchronized void recordMtu(String peer, String localDevice, int localMtu, String remoteDevice, int remoteMtu) {
        mtus.put(peer, new ProbeResults.PathMtu(peer, localDevice, localMtu, remoteDevice, remoteMtu));
    }

    /** Forgets the peers no longer planned. */
    public synchronized void retain(Set<String> peers) {
        rounds.keySet().removeIf(k -> !peers.contains(k.substring(0, k.indexOf('|'))));
        racks.keySet().retainAll(peers);
        hosts.keySet().retainAll(peers);
        mtus.keySet().retainAll(peers);
    }

    /** The host name each peer's endpoint gave, by peer (HOST:PORT), for the peers with windows. */
    public synchronized Map<String, String> hosts() {
        return Map.copyOf(hosts);
    }

    /** Each window added up, with the quantiles of all its RTTs and the median and 90th percentile of its responder's holds. */
    public synchronized ProbeResults snapshot() {
        List<ProbeResults.Window> out = new ArrayList<>();
        for (Deque<ProbeResult> d : rounds.values()) {
            int sent = d.stream().mapToInt(ProbeResult::sent).sum();
            int lost = d.stream().mapToInt(ProbeResult::lost).sum();
            int late = d.stream().mapToInt(ProbeResult::late).sum();
            boolean overloaded = d.stream().anyMatch(ProbeResult::responderOverloaded);
            long[] rtts = d.stream().flatMapToLong(r -> Arrays.stream(r.rttNanos())).sorted().toArray();
            long[] holds = d.stream().filter(r -> r.responderNanos() != null).flatMapToLong(r -> Arrays.stream(r.responderNanos()))
                    .sorted().toArray();
            ProbeResult last = d.peekLast();
            out.add(new ProbeResults.Window(last.peer(), racks.get(last.peer()), last.transport(), last.size(), last.localDevice(),
                    sent, lost, late, overloaded, rtts.length == 0 ? null : ProbeResult.quantile(rtts, 0.5),
                    rtts.length == 0 ? null : ProbeResult.quantile(rtts, 0.99), holds.length == 0 ? null : ProbeResult.quantile(holds, 0.5),
                    holds.length == 0 ? null : ProbeResult.quantile(holds, 0.9)));
        }
        return new ProbeResults(out, List.copyOf(mtus.values()), List.of());
    }
}
