package io.fabricd.model;

/**
 * Port attributes sysfs lacks: MTUs (verbs, or derived from the netdev MTU), GID table length, and
 * rdma_cm's configfs defaults (docs/spec/host-facts.md §3.4-§3.5).
 *
 * @param mtuSource   "verbs" (ibv_query_port or its side-car) or "derived" (RoCE: netdev MTU minus the
 *                    driver's header allowance, rounded down to an IB MTU); null when unknown
 * @param roceMode    rdma_cm default_roce_mode; null = kernel default (RoCE v2)
 * @param roceTos     rdma_cm default_roce_tos; null = kernel default (0)
 */
public record PortAttrs(String device, int port, Integer activeMtu, Integer maxMtu, String mtuSource, Integer gidTblLen,
                        String roceMode, Integer roceTos) {
}
