package io.fabricd.collectors.verbs;

import io.fabricd.model.PortAttrs;
import java.util.List;
import java.util.Map;

/** The verbs stage's slice: per-port MTUs and rdma_cm defaults, and ibv_query_device's max_qp by device. */
public record VerbsSlice(List<PortAttrs> portAttrs, Map<String, Long> maxQp) {
    public VerbsSlice {
        portAttrs = List.copyOf(portAttrs);
        maxQp = Map.copyOf(maxQp);
    }
}
