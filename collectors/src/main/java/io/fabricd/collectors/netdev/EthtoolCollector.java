package io.fabricd.collectors.netdev;

import io.fabricd.collectors.CollectContext;
import io.fabricd.collectors.Collector;
import io.fabricd.collectors.kernel.EthtoolStats;
import io.fabricd.collectors.kernel.PauseParams;
import io.fabricd.collectors.model.NetdevInfo;
import io.fabricd.collectors.source.HostReadException;
import java.util.Optional;

/**
 * Driver statistics ({@code ethtool -S}: the SIOCETHTOOL ioctl live, the side-car in a snapshot)
 * and 802.3x pause parameters of every RDMA netdev. A snapshot without a side-car for a netdev
 * simply has no statistics for it.
 */
public final class EthtoolCollector implements Collector {

    @Override
    public String name() {
        return "ethtool";
    }

    /**
     * Each netdev's last statistics and their sorted copy: a snapshot's side-car that did not change
     * parses to the same EthtoolStats (SideCarKernel), whose ~250 statistics then need no new copy.
     */
    private final java.util.Map<String, java.util.Map.Entry<java.util.Map<String, Long>, java.util.SortedMap<String, Long>>> sorted =
            new java.util.HashMap<>();

    private java.util.SortedMap<String, Long> sorted(String netdev, java.util.Map<String, Long> stats) {
        var last = sorted.get(netdev);
        if (last != null && last.getKey() == stats) {
            return last.getValue();
        }
        java.util.SortedMap<String, Long> copy = io.fabricd.collectors.model.FrozenSortedMap.of(stats);
        if (sorted.size() > 10_000) {
            sorted.clear();
        }
        sorted.put(netdev, java.util.Map.entry(stats, copy));
        return copy;
    }

    @Override
    public synchronized void collect(CollectContext ctx) {
        for (NetdevInfo n : ctx.model().netdevs()) {
            EthtoolStats stats = null;
            try {
                stats = ctx.source().kernel().ethtoolStats(n.name());
            } catch (HostReadException e) {
                if (!e.isMissing()) {
                    ctx.error(e);
                }
            }
            Optional<PauseParams> pause = Optional.empty();
            try {
                pause = ctx.source().kernel().pauseParams(n.name());
            } catch (HostReadException e) {
                if (!e.isMissing()) {
                    ctx.error(e);
                }
            }
            java.util.Map<String, Long> s = stats == null ? java.util.Map.of() : sorted(n.name(), stats.stats());
            PauseParams p = pause.orElse(null);
            ctx.model().updateNetdev(n.name(), x -> x.withStats(s, p));
        }
    }
}
