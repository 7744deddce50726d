package io.fabricd.collectors.netdev;

import io.fabricd.model.NetdevInfo;
import java.util.Comparator;
import java.util.List;

/** The netdev stage's slice: the netdevs bound to RDMA ports, sorted by name, without driver statistics or DCB. */
public record NetdevSlice(List<NetdevInfo> netdevs) {
    public NetdevSlice {
        netdevs = netdevs.stream().sorted(Comparator.comparing(NetdevInfo::name)).toList();
    }
}
