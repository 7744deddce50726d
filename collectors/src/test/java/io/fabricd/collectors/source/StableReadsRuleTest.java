package io.fabricd.collectors.source;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The rule of what {@link StableReads} keeps: identity, never state, counter values or GIDs. */
class StableReadsRuleTest {

    @Test
    void identityIsKeptStateIsNot() {
        String ib = "sys/class/infiniband/mlx5_0";
        String pci = "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0";
        assertThat(List.of(ib + "/fw_ver", ib + "/node_guid", ib + "/ports/1/link_layer", pci + "/vendor", pci + "/max_link_speed",
                "sys/bus/pci/devices/0000:01:00.0/class"))
                .allMatch(p -> StableReads.KEPT_TEXT.matcher(p).matches());
        assertThat(List.of(ib + "/ports/1/state", ib + "/ports/1/rate", ib + "/ports/1/counters/port_rcv_data", ib + "/ports/1/gids/0",
                ib + "/ports/1/gid_attrs/types/0", pci + "/current_link_speed", "sys/class/net/eth0/mtu",
                pci + "/iommu_group/type", "proc/modules", "sys/class/net/eth0/type", ib + "/parent"))
                .noneMatch(p -> StableReads.KEPT_TEXT.matcher(p).matches());
        assertThat(StableReads.KEPT_BYTES.matcher(pci + "/config").matches()).isTrue();
        assertThat(List.of(ib + "/ports/1/counters", ib + "/ports/1/hw_counters", ib + "/ports/1/gids", ib + "/ports"))
                .allMatch(p -> StableReads.KEPT_LISTING.matcher(p).matches());
        assertThat(List.of("sys/class/infiniband", "sys/bus/pci/devices", ib + "/device/net"))
                .noneMatch(p -> StableReads.KEPT_LISTING.matcher(p).matches());
        assertThat(List.of(ib + "/device", pci + "/iommu_group", "sys/bus/pci/devices/0000:01:00.0"))
                .allMatch(p -> StableReads.KEPT_LINK.matcher(p).matches());
        // a rebind (nvidia -> vfio-pci) changes a driver link while the hardware listings stay
        assertThat(List.of("sys/class/net/eth0", "sys/class/net/eth0/device/driver", pci + "/driver", ib + "/device/driver"))
                .noneMatch(p -> StableReads.KEPT_LINK.matcher(p).matches());
    }
}
