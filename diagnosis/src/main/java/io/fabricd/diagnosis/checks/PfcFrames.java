package io.fabricd.diagnosis.checks;

import io.fabricd.model.DriverStats;
import io.fabricd.model.DriverStats.Dir;
import io.fabricd.model.NetdevInfo;
import java.util.List;

/**
 * PFC pause frames of one priority and direction: the driver's statistic ({@link DriverStats#pfcPauseFrames}),
 * else DCB's PFC requests (sent) or indications (received). mlx5 lists its statistics only for priorities
 * with PFC on, but fills DCB's for all eight: frames received on a priority without PFC show there only.
 */
final class PfcFrames {
    private PfcFrames() {
    }

    /** Frames so far; null when neither the driver nor DCB counts them. */
    static Long of(NetdevInfo nd, Dir dir, int prio) {
        Long v = DriverStats.pfcPauseFrames(nd.stats(), dir, prio);
        if (v != null || nd.dcb() == null) {
            return v;
        }
        List<Long> l = dir == Dir.TX ? nd.dcb().requests() : nd.dcb().indications();
        return l.size() > prio ? l.get(prio) : null;
    }

    /** The frames counted between two collections of the netdev; null when not counted in both, or reset. */
    static Long delta(NetdevInfo before, NetdevInfo now, Dir dir, int prio) {
        return Ports.delta(of(before, dir, prio), of(now, dir, prio));
    }
}
