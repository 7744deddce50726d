package io.fabricd.collectors.lldp;

import io.fabricd.model.Neighbor;
import java.util.Comparator;
import java.util.List;

/** The lldp stage's slice: the neighbour on each RDMA netdev lldpd knows one for, sorted by netdev. */
public record LldpSlice(List<Neighbor> neighbors) {
    public LldpSlice {
        neighbors = neighbors.stream().sorted(Comparator.comparing(Neighbor::netdev)).toList();
    }
}
