package io.fabricd.probes.bandwidth;

import io.fabricd.model.HostModel;
import io.fabricd.model.LinkRate;

/**
 * What a link can deliver at most, in data bits per second: the lowest of the port's rate after
 * line encoding and both NICs' PCIe links (width x transfer rate after encoding). Unknown parts
 * (rxe has no PCIe function, a snapshot may lack a rate) are left out, never guessed.
 *
 * <p>Line encoding (IBTA; the kernel's {@code rate} file, docs/spec/host-facts.md §1.4): SDR, DDR and QDR InfiniBand
 * carry 8b/10b, so their data rate is 0.8 of what the kernel prints; FDR prints its 14 Gb/s lane
 * signalling rate ("56 Gb/sec (4X FDR)") and carries 64b/66b; FDR10, EDR, HDR, NDR and XDR print
 * the data rate. RoCE ports print the Ethernet speed, already a data rate. PCIe (PCI-SIG): 2.5 and 5
 * GT/s carry 8b/10b, 8 to 32 GT/s 128b/130b, 64 GT/s FLIT mode (242 of 256 bytes carry data).
 * Protocol overhead (TLP and packet headers) is not taken out: even a perfect run stays below this
 * figure by its share.
 */
public record Ceiling(Double linkBps, Double localPcieBps, Double peerPcieBps) {

    /** The lowest of the known parts, or null when none is known. */
    public Double bps() {
        Double min = null;
        for (Double d : new Double[] {linkBps, localPcieBps, peerPcieBps}) {
            if (d != null && (min == null || d < min)) {
                min = d;
            }
        }
        return min;
    }

    /** Which part limits: "link", "local_pcie" or "peer_pcie"; "unknown" when none is known. */
    public String limit() {
        Double b = bps();
        if (b == null) {
            return "unknown";
        }
        return b.equals(linkBps) ? "link" : b.equals(localPcieBps) ? "local_pcie" : "peer_pcie";
    }

    /** A port's data rate in bits/s from its rate and link layer; null when unknown. */
    public static Double linkData(LinkRate rate, String linkLayer) {
        if (rate == null || rate.bytesPerSecond() <= 0) {
            return null;
        }
        double bps = rate.bytesPerSecond() * 8.0;
        if ("Ethernet".equals(linkLayer)) {
            return bps;
        }
        return switch (rate.speed()) {
            case "SDR", "DDR", "QDR" -> bps * 0.8;
            case "FDR" -> bps * 64 / 66;
            default -> bps;
        };
    }

    /** A PCIe link's data rate in bits/s from its transfer rate (transfers/s) and width; null when either is unknown. */
    public static Double pcieData(Long transfersPerSecond, Integer width) {
        if (transfersPerSecond == null || width == null || transfersPerSecond <= 0 || width <= 0) {
            return null;
        }
        double perLane;
        if (transfersPerSecond <= 5_000_000_000L) {
            perLane = transfersPerSecond * 0.8;
        } else if (transfersPerSecond <= 32_000_000_000L) {
            perLane = transfersPerSecond * 128.0 / 130;
        } else {
            perLane = transfersPerSecond * 242.0 / 256;
        }
        return perLane * width;
    }

    /** This host's side of a ceiling: a port's link and its NIC's PCIe, from the latest collection. */
    public interface Local {
        Double linkBps(String device, int port);

        Double pcieBps(String device);

        /** From a host model (null: nothing known yet). */
        static Local of(HostModel m) {
            return new Local() {
                @Override
                public Double linkBps(String device, int port) {
                    return m == null ? null : m.port(device, port).map(p -> linkData(p.rate(), p.linkLayer())).orElse(null);
                }

                @Override
                public Double pcieBps(String device) {
                    // the link's current speed and width: what moves data now (a NIC's link does not idle down as a GPU's does)
                    return m == null ? null : m.device(device).filter(d -> d.pciAddress() != null)
                            .flatMap(d -> m.pciFunction(d.pciAddress())).map(f -> pcieData(f.speed(), f.width())).orElse(null);
                }
            };
        }
    }
}
