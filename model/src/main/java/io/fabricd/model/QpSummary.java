package io.fabricd.model;

import java.util.SortedMap;

/**
 * Queue pairs visible to fabricd (RDMA netlink; PID-namespace filtered) and the device limit.
 *
 * @param byState QP count by state (RESET, INIT, RTR, RTS, SQD, SQE, ERR)
 * @param maxQp   ibv_query_device max_qp; null when verbs cannot answer
 */
public record QpSummary(String device, SortedMap<String, Integer> byState, Long maxQp) {
    public QpSummary {
        byState = Counters.copy(byState);
    }
}
