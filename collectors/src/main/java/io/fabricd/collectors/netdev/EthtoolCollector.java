package io.fabricd.collectors.netdev;

import io.fabricd.collectors.CollectContext;
import io.fabricd.collectors.Slices;
import io.fabricd.collectors.Stage;
import io.fabricd.collectors.kernel.EthtoolStats;
import io.fabricd.model.NetdevInfo;
import io.fabricd.model.PauseParams;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Driver statistics ({@code ethtool -S}: the SIOCETHTOOL ioctl live, the side-car in a snapshot)
 * and 802.3x pause parameters of every RDMA netdev. A snapshot without a side-car for a netdev
 * simply has no statistics for it.
 */
public final class EthtoolCollector extends Stage.Declared<EthtoolSlice> {

    public EthtoolCollector() {
        super("ethtool", EthtoolSlice.class, NetdevSlice.class);
    }

    @Override
    public EthtoolSlice collect(CollectContext ctx, Slices in) {
        Map<String, EthtoolSlice.Stats> out = new HashMap<>();
        for (NetdevInfo n : in.get(NetdevSlice.class).map(NetdevSlice::netdevs).orElse(List.of())) {
            EthtoolStats stats = ctx.readOr(() -> ctx.source().kernel().ethtoolStats(n.name()), null);
            Optional<PauseParams> pause = ctx.readOr(() -> ctx.source().kernel().pauseParams(n.name()), Optional.empty());
            out.put(n.name(), new EthtoolSlice.Stats(stats == null ? Map.of() : stats.stats(), pause.orElse(null)));
        }
        return new EthtoolSlice(out);
    }
}
