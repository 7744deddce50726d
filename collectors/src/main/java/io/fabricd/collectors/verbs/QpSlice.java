package io.fabricd.collectors.verbs;

import io.fabricd.model.QpSummary;
import java.util.List;

/** The qp stage's slice: queue pairs by device and state, with max_qp where the verbs stage found it. */
public record QpSlice(List<QpSummary> qps) {
    public QpSlice {
        qps = List.copyOf(qps);
    }
}
