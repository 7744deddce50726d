package io.fabricd.exporters;

import io.fabricd.model.HostModel;
import io.fabricd.model.Neighbor;
import io.fabricd.model.metrics.TopologyMetrics;

/** The switch neighbours of the RDMA ports (LLDP): who they are once stable, and how often they changed. */
final class NeighborFamilies {
    private NeighborFamilies() {
    }

    static void add(Families f, HostModel m) {
        for (Neighbor n : m.neighbors()) {
            String port = n.port() == null ? "" : n.port().toString();
            f.add(TopologyMetrics.PORT_NEIGHBOR_CHANGES, n.changes(), n.device(), port, n.netdev());
            if (n.stable()) {
                f.add(TopologyMetrics.PORT_NEIGHBOR_INFO, 1, n.device(), port, n.netdev(), n.switchName(), n.switchPort(),
                        n.chassisId(), n.learned());
            }
        }
    }
}
