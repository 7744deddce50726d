package io.fabricd.diagnosis.checks;

import io.fabricd.model.HostModel;
import io.fabricd.model.NetdevInfo;
import io.fabricd.model.RdmaPort;
import io.fabricd.model.finding.Subject;
import java.util.Locale;
import java.util.Optional;

/** What several checks need to know about a port: its subject, its netdev, its previous self. */
final class Ports {
    private Ports() {
    }

    /** device, port and (when known) netdev. */
    static Subject subject(RdmaPort p) {
        return Subject.port(p.device(), p.port()).withNetdev(p.netdev());
    }

    static Subject subject(RdmaPort p, int priority) {
        return subject(p).withPriority(priority);
    }

    static boolean ethernet(RdmaPort p) {
        return "Ethernet".equals(p.linkLayer());
    }

    /** An Ethernet port of a RoCE device: not iWARP (RDMA over TCP needs neither RoCE GIDs nor PFC). */
    static boolean roce(HostModel m, RdmaPort p) {
        return ethernet(p) && m.device(p.device()).map(d -> !d.iwarp()).orElse(true);
    }

    static NetdevInfo netdev(HostModel m, RdmaPort p) {
        return p.netdev() == null ? null : m.netdev(p.netdev()).orElse(null);
    }

    /** The same port in another collection. */
    static Optional<RdmaPort> in(HostModel m, RdmaPort p) {
        return m == null ? Optional.empty() : m.port(p.device(), p.port());
    }

    /** Seconds between two collections; 0 when there is no usable previous one. */
    static double elapsed(HostModel current, HostModel previous) {
        if (previous == null) {
            return 0;
        }
        double s = (current.collectedAt().toEpochMilli() - previous.collectedAt().toEpochMilli()) / 1000.0;
        return s > 0 ? s : 0;
    }

    /**
     * The increase of an unsigned counter between two readings; null when either is missing or the
     * counter went down (reset by a driver reload or {@code perfquery -R}: no rate to compute).
     */
    static Long delta(Long previous, Long current) {
        if (previous == null || current == null || Long.compareUnsigned(current, previous) < 0) {
            return null;
        }
        return current - previous;
    }

    static String rate(double perSecond) {
        if (perSecond >= 1) {
            return String.format(Locale.ROOT, "%.1f/s", perSecond);
        }
        if (perSecond * 60 >= 1) {
            return String.format(Locale.ROOT, "%.1f/min", perSecond * 60);
        }
        return String.format(Locale.ROOT, "%.1f/h", perSecond * 3600);
    }
}
