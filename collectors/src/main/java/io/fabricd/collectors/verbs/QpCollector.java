package io.fabricd.collectors.verbs;

import io.fabricd.collectors.CollectContext;
import io.fabricd.collectors.Slices;
import io.fabricd.collectors.Stage;
import io.fabricd.collectors.kernel.HostReadException;
import io.fabricd.collectors.kernel.QpInfo;
import io.fabricd.collectors.rdma.RdmaSlice;
import io.fabricd.model.QpSummary;
import io.fabricd.model.RdmaDevice;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Queue pairs by device and state from the RDMA netlink resource dump (docs/spec/host-facts.md §6), and max_qp from
 * ibv_query_device (the verbs stage's: absent when that stage is disabled or failed, the counts
 * still reported). The kernel filters the dump by PID namespace: in a container fabricd sees the
 * host's QPs only with the host PID namespace (docs/metrics.md).
 */
public final class QpCollector extends Stage.Declared<QpSlice> {

    public QpCollector() {
        super("qp", QpSlice.class, RdmaSlice.class, VerbsSlice.class);
    }

    @Override
    public QpSlice collect(CollectContext ctx, Slices in) {
        Optional<List<QpInfo>> qps;
        try {
            qps = ctx.source().kernel().queuePairs();
        } catch (HostReadException e) {
            ctx.error(e);
            qps = Optional.empty();
        }
        Map<String, Long> maxQps = in.get(VerbsSlice.class).map(VerbsSlice::maxQp).orElse(Map.of());
        List<QpSummary> out = new ArrayList<>();
        for (RdmaDevice d : in.get(RdmaSlice.class).map(RdmaSlice::devices).orElse(List.of())) {
            Long maxQp = maxQps.get(d.name());
            if (qps.isEmpty() && maxQp == null) {
                continue;
            }
            TreeMap<String, Integer> byState = new TreeMap<>();
            qps.ifPresent(list -> list.stream().filter(q -> d.name().equals(q.device()))
                    .forEach(q -> byState.merge(q.state() == null ? "UNKNOWN" : q.state(), 1, Integer::sum)));
            out.add(new QpSummary(d.name(), byState, maxQp));
        }
        return new QpSlice(out);
    }
}
