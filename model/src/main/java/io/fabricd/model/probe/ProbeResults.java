package io.fabricd.model.probe;

import java.util.ArrayList;
import java.util.List;

/**
 * What the agent's probes measured lately, for the checks that judge it (probe_loss,
 * probe_latency, mtu_mismatch of a path, bandwidth_low). The probes measure; diagnosis judges.
 *
 * @param windows   the recent rounds per peer, transport and size, in the order of peer, transport, size
 * @param paths     the active MTUs at both ends of each verbs path to a peer
 * @param bandwidth the last bandwidth test per peer, device and direction
 */
public record ProbeResults(List<Window> windows, List<PathMtu> paths, List<Bandwidth> bandwidth) {
    /** Nothing probed (diagnose on the command line, an agent without probes). */
    public static final ProbeResults NONE = new ProbeResults(List.of(), List.of(), List.of());

    public ProbeResults {
        windows = List.copyOf(windows);
        paths = List.copyOf(paths);
        bandwidth = List.copyOf(bandwidth);
    }

    /** These results and {@code other}'s together (the pingmesh's and the bandwidth tests'). */
    public ProbeResults and(ProbeResults other) {
        return new ProbeResults(join(windows, other.windows), join(paths, other.paths), join(bandwidth, other.bandwidth));
    }

    private static <T> List<T> join(List<T> a, List<T> b) {
        List<T> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    /**
     * The last rounds (probe.window) to one peer at one transport and size, added up.
     *
     * @param peerRack            the peer's rack ("" when unknown)
     * @param localDevice         the local RDMA device of a verbs path; null over UDP
     * @param late                answered after the per-probe timeout
     * @param responderOverloaded the peer's responder said it dropped requests itself in one of the rounds
     * @param p50Seconds          median RTT of every answered probe of the window; null when none was answered
     * @param p99Seconds          99th percentile of the same; null when none was answered
     * @param holdP50Seconds      median of how long the peer's responder held those probes (the hold each answer
     *                            carries: the peer host's own share, out of the RTT); null when none was answered
     * @param holdP90Seconds      90th percentile of the same: a host that answers some probes late (stalls now and
     *                            then) shows here while its median stays fast; null when none was answered
     */
    public record Window(String peer, String peerRack, String transport, int size, String localDevice, int sent, int lost, int late,
                         boolean responderOverloaded, Double p50Seconds, Double p99Seconds, Double holdP50Seconds,
                         Double holdP90Seconds) {
    }

    /** The active MTUs of the two ends of the verbs path to {@code peer} (the peer tells its own in its endpoint). */
    public record PathMtu(String peer, String localDevice, int localMtu, String peerDevice, int peerMtu) {
    }

    /**
     * The last bandwidth test with a peer in one direction.
     *
     * @param direction            "tx": this host wrote; "rx": the peer wrote into it
     * @param ceilingBitsPerSecond the most the path can carry (link after encoding, both NICs' PCIe); null when unknown
     * @param limit                which of them: "link", "local_pcie", "peer_pcie", "unknown"
     */
    public record Bandwidth(String peer, String device, String direction, long size, int qps, double bitsPerSecond,
                            Double ceilingBitsPerSecond, String limit, double seconds) {
        /** The data rate over the ceiling; null when the ceiling is unknown. */
        public Double ratio() {
            return ceilingBitsPerSecond == null || ceilingBitsPerSecond <= 0 ? null : bitsPerSecond / ceilingBitsPerSecond;
        }
    }
}
