package io.fabricd.collectors.verbs;

import io.fabricd.collectors.CollectContext;
import io.fabricd.collectors.Collector;
import io.fabricd.collectors.kernel.QpInfo;
import io.fabricd.model.QpSummary;
import io.fabricd.model.RdmaDevice;
import io.fabricd.collectors.source.HostReadException;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Queue pairs by device and state from the RDMA netlink resource dump (docs/spec/host-facts.md §6), and max_qp from
 * ibv_query_device (asked by the verbs collector, which runs first). The kernel filters the dump by PID namespace: in a container fabricd sees the
 * host's QPs only with the host PID namespace (docs/metrics.md).
 */
public final class QpCollector implements Collector {

    @Override
    public String name() {
        return "qp";
    }

    @Override
    public List<String> needs() {
        return List.of("rdma");
    }

    @Override
    public void collect(CollectContext ctx) {
        Optional<List<QpInfo>> qps;
        try {
            qps = ctx.source().kernel().queuePairs();
        } catch (HostReadException e) {
            ctx.error(e);
            qps = Optional.empty();
        }
        for (RdmaDevice d : ctx.model().devices()) {
            Long maxQp = ctx.model().maxQp(d.name()); // asked once, by the verbs collector
            if (qps.isEmpty() && maxQp == null) {
                continue;
            }
            TreeMap<String, Integer> byState = new TreeMap<>();
            qps.ifPresent(list -> list.stream().filter(q -> d.name().equals(q.device()))
                    .forEach(q -> byState.merge(q.state() == null ? "UNKNOWN" : q.state(), 1, Integer::sum)));
            ctx.model().addQps(new QpSummary(d.name(), byState, maxQp));
        }
    }
}
