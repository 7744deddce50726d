package io.fabricd.probes.bandwidth;

import io.fabricd.model.probe.ProbeResults;

/**
 * One bandwidth test between this agent and a peer.
 *
 * @param direction  "tx": this side wrote; "rx": the peer wrote into this side
 * @param ceilingBps the lowest of the link after encoding and both NICs' PCIe ({@link Ceiling}); null when unknown
 * @param limit      which one: "link", "local_pcie", "peer_pcie" (as the writer sees it), "unknown"
 * @param atMillis   when it ended (epoch ms)
 */
public record BandwidthResult(String peer, String device, String peerDevice, String direction, long size, int qps, long bytes,
                              long messages, long nanos, Double ceilingBps, String limit, long atMillis) {

    /** Data bits per second moved. */
    public double bps() {
        return nanos <= 0 ? 0 : bytes * 8.0 / (nanos / 1e9);
    }

    /** Messages per second. */
    public double messageRate() {
        return nanos <= 0 ? 0 : messages / (nanos / 1e9);
    }

    /** bps() over the ceiling; null when the ceiling is unknown. */
    public Double ratio() {
        return ceilingBps == null || ceilingBps <= 0 ? null : bps() / ceilingBps;
    }

    /** What the bandwidth_low check judges. */
    public ProbeResults.Bandwidth measured() {
        return new ProbeResults.Bandwidth(peer, device, direction, size, qps, bps(), ceilingBps, limit, nanos / 1e9);
    }
}
