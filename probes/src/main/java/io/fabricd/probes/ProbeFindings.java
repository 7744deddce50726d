package io.fabricd.probes;

import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Severity;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@code probe_loss} and {@code probe_latency} over a sliding window of probe rounds per peer,
 * transport and size. probe_loss: lost share above {@code lossThreshold} with at least
 * {@code minProbes} sent (critical when nothing came back, else warning). probe_latency (warning):
 * p99 RTT above {@code latencyThreshold}, or p50 more than {@code outlierFactor} times the median
 * p50 of all peers at the same transport and size (with at least 3 peers) — far above its peers.
 * Thread-safe.
 */
public final class ProbeFindings {
    private final int window;
    private final double lossThreshold;
    private final int minProbes;
    private final double latencyThresholdSeconds;
    private final double outlierFactor;
    private final Map<String, Deque<ProbeResult>> rounds = new TreeMap<>();
    private final Map<String, String> racks = new TreeMap<>();

    public ProbeFindings(int window, double lossThreshold, int minProbes, double latencyThresholdSeconds, double outlierFactor) {
        this.window = window;
        this.lossThreshold = lossThreshold;
        this.minProbes = minProbes;
        this.latencyThresholdSeconds = latencyThresholdSeconds;
        this.outlierFactor = outlierFactor;
    }

    public synchronized void record(ProbeResult r, String rack) {
        String k = r.peer() + "|" + r.transport() + "|" + r.size();
        Deque<ProbeResult> d = rounds.computeIfAbsent(k, x -> new ArrayDeque<>());
        d.addLast(r);
        while (d.size() > window) {
            d.removeFirst();
        }
        racks.put(r.peer(), rack == null ? "" : rack);
    }

    private final Map<String, int[]> mtus = new TreeMap<>();
    private final Map<String, String[]> mtuDevices = new TreeMap<>();

    /** The active MTUs of the two ends of a verbs path (peers report theirs in the endpoint). */
    public synchronized void recordMtu(String peer, String localDevice, int localMtu, String remoteDevice, int remoteMtu) {
        mtus.put(peer, new int[] {localMtu, remoteMtu});
        mtuDevices.put(peer, new String[] {localDevice, remoteDevice});
    }

    public synchronized void retain(Set<String> peers) {
        rounds.keySet().removeIf(k -> !peers.contains(k.substring(0, k.indexOf('|'))));
        racks.keySet().retainAll(peers);
        mtus.keySet().retainAll(peers);
        mtuDevices.keySet().retainAll(peers);
    }

    public synchronized List<Finding> findings() {
        List<Finding> out = new ArrayList<>();
        Map<String, Double> p50 = new TreeMap<>();
        Map<String, long[]> rtts = new TreeMap<>();
        for (var e : rounds.entrySet()) {
            int sent = 0;
            int lost = 0;
            int late = 0;
            List<long[]> all = new ArrayList<>();
            ProbeResult last = null;
            boolean overloaded = false;
            for (ProbeResult r : e.getValue()) {
                overloaded |= r.responderOverloaded();
                sent += r.sent();
                lost += r.lost();
                late += r.late();
                all.add(r.rttNanos());
                last = r;
            }
            long[] merged = all.stream().flatMapToLong(Arrays::stream).sorted().toArray();
            rtts.put(e.getKey(), merged);
            if (merged.length > 0) {
                p50.put(e.getKey(), ProbeResult.quantile(merged, 0.5));
            }
            if (sent >= minProbes && (double) lost / sent > lossThreshold) {
                Map<String, Object> ev = new LinkedHashMap<>();
                ev.put("peer", last.peer());
                ev.put("peer_rack", racks.get(last.peer()));
                ev.put("transport", last.transport());
                ev.put("size", last.size());
                ev.put("sent", sent);
                ev.put("lost", lost);
                ev.put("late", late);
                ev.put("loss_ratio", Math.round((double) lost / sent * 10000) / 10000.0);
                ev.put("threshold", lossThreshold);
                String lostText = Math.round((double) lost / sent * 1000) / 10.0 + " % of " + last.transport() + " probes of "
                        + last.size() + " B to " + last.peer() + " lost";
                if (overloaded) {
                    // the peer said it dropped requests itself: its rate limit, or a flood at it
                    ev.put("responder_overloaded", true);
                    out.add(new Finding("probe_loss", Severity.WARNING, subject(last), lostText
                            + ", and the peer's responder says it dropped requests itself (not necessarily the network)", ev,
                            "Look at the peer's fabric_probe_responder_dropped_total: rate_limited means more agents probe it than "
                                    + "probe.responder_rate allows (raise it), overflow a flood of packets at its probe port "
                                    + "(unauthenticated, malformed) from whoever sends them."));
                } else {
                    out.add(new Finding("probe_loss", lost == sent ? Severity.CRITICAL : Severity.WARNING, subject(last), lostText, ev,
                            "Probe the peer by hand (`fabricd probe " + last.peer() + " --transport " + last.transport() + " --count 1000`); "
                                    + "loss only at large sizes points at an MTU mismatch on the path, loss to every peer of one rack at its "
                                    + "ToR, loss to one peer at that host (link_down, port errors, pause storm findings there)."));
                }
            }
        }
        for (var e : rounds.entrySet()) {
            long[] merged = rtts.get(e.getKey());
            if (merged.length == 0) {
                continue;
            }
            ProbeResult last = e.getValue().peekLast();
            double p99 = ProbeResult.quantile(merged, 0.99);
            double mine = p50.get(e.getKey());
            String group = "|" + last.transport() + "|" + last.size();
            double[] peers = p50.entrySet().stream().filter(x -> x.getKey().endsWith(group)).mapToDouble(Map.Entry::getValue)
                    .sorted().toArray();
            double median = peers.length >= 3 ? peers[peers.length / 2] : Double.NaN;
            boolean slow = p99 > latencyThresholdSeconds;
            boolean outlier = !Double.isNaN(median) && mine > outlierFactor * median;
            if (!slow && !outlier) {
                continue;
            }
            Map<String, Object> ev = new LinkedHashMap<>();
            ev.put("peer", last.peer());
            ev.put("transport", last.transport());
            ev.put("size", last.size());
            ev.put("p50_seconds", mine);
            ev.put("p99_seconds", p99);
            ev.put("threshold_p99_seconds", latencyThresholdSeconds);
            if (!Double.isNaN(median)) {
                ev.put("median_p50_of_peers_seconds", median);
            }
            out.add(new Finding("probe_latency", Severity.WARNING, subject(last),
                    (slow ? "p99 RTT " + Math.round(p99 * 1e6) + " µs" : "p50 RTT " + Math.round(mine * 1e6) + " µs, "
                            + Math.round(mine / median * 10) / 10.0 + "× its peers' median,") + " to " + last.peer() + " ("
                            + last.transport() + ", " + last.size() + " B)", ev,
                    "Compare with other peers of the same rack: one slow peer points at that host (CPU, PCIe, pause frames), all peers "
                            + "of a rack at its ToR or the spine; check PFC pause time (fabric_pfc_pause_seconds_total) along the path."));
        }
        for (var e : mtus.entrySet()) {
            int[] m = e.getValue();
            if (m[0] == m[1] || m[0] <= 0 || m[1] <= 0) {
                continue;
            }
            String[] d = mtuDevices.get(e.getKey());
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("peer", e.getKey());
            s.put("device", d[0]);
            Map<String, Object> ev = new LinkedHashMap<>();
            ev.put("local_device", d[0]);
            ev.put("local_active_mtu", m[0]);
            ev.put("peer_device", d[1]);
            ev.put("peer_active_mtu", m[1]);
            out.add(new Finding("mtu_mismatch", Severity.WARNING, s, "active MTU " + m[0] + " of " + d[0] + " differs from " + m[1]
                    + " of " + d[1] + " on " + e.getKey(), ev,
                    "Give both ends the same MTU: the netdev MTU on RoCE (4200 for active MTU 4096), the partition MTU on InfiniBand. "
                            + "Large transfers from the bigger side stall while small messages work."));
        }
        // one finding per check and subject (sizes and transports of a peer merge): the most severe, first seen
        out.sort(Comparator.comparing(Finding::severity));
        Set<String> seen = new HashSet<>();
        out.removeIf(f -> !seen.add(f.check() + f.subject()));
        return out;
    }

    /** The peer (fabricd's subject extension for probe findings) and, for verbs, the local device. */
    private static Map<String, Object> subject(ProbeResult r) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("peer", r.peer());
        if (r.localDevice() != null) {
            s.put("device", r.localDevice());
        }
        return s;
    }
}
