package io.fabricd.collectors;

import java.util.List;

/**
 * One concern of the host (RDMA ports, netdevs, DCB, topology...). A collector reads through
 * {@link CollectContext#source()}, records every failed path with {@link CollectContext#error}, and
 * puts what it learnt into {@link CollectContext#model()}. It never throws for bad input; if it
 * does anyway, {@link HostCollection} marks it failed and the other collectors still run.
 */
public interface Collector {

    /** Short name: the {@code collector} label of fabric_collector_success. */
    String name();

    /**
     * The collectors whose results this one reads from {@link CollectContext#model()} (netdev reads
     * rdma's ports); they run before it ({@link HostCollection#defaultCollectors}).
     */
    default List<String> needs() {
        return List.of();
    }

    void collect(CollectContext ctx);
}
