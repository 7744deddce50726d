package io.fabricd.collectors.netdev;

import io.fabricd.collectors.CollectContext;
import io.fabricd.collectors.Collector;
import io.fabricd.collectors.kernel.EthtoolStats;
import io.fabricd.model.PauseParams;
import io.fabricd.model.NetdevInfo;
import io.fabricd.collectors.source.HostReadException;
import java.util.Map;
import java.util.Optional;
import java.util.List;

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

    @Override
    public List<String> needs() {
        return List.of("netdev");
    }

    @Override
    public void collect(CollectContext ctx) {
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
            Map<String, Long> s = stats == null ? Map.of() : stats.stats();
            PauseParams p = pause.orElse(null);
            ctx.model().updateNetdev(n.name(), x -> x.withStats(s, p));
        }
    }
}
