package io.fabricd.collectors.kernel.live;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.collectors.CollectorConfig;
import io.fabricd.collectors.Fixtures;
import io.fabricd.collectors.run.HostCollection;
import io.fabricd.collectors.source.LiveHostSource;
import io.fabricd.model.CollectorRun;
import io.fabricd.model.HostModel;
import io.fabricd.model.ReadError;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ioctl and netlink errors from the real kernel: the live reader over a copy of a real
 * Soft-RoCE host whose netdevs (veth0, veth1) do not exist on the machine running the test, so
 * every ethtool ioctl (SIOCETHTOOL: -S, -a) and DCB netlink request (RTM_GETDCB) for them fails
 * with the kernel's ENODEV. Each failure is recorded for its netdev alone; the ports, their
 * counters and the other collectors are unaffected.
 */
class KernelErrorsTest {
    @Test
    void ioctlAndNetlinkErrorsDegradeOnlyTheirNetdev(@TempDir Path tmp) throws Exception {
        Assumptions.assumeFalse(Files.exists(Path.of("/sys/class/net/veth0")) || Files.exists(Path.of("/sys/class/net/veth1")),
                "this machine has a veth0/veth1: the fixture's netdevs would be answered");
        Fixtures.copy("real-softroce-6.1", tmp);
        try (LiveHostSource live = new LiveHostSource(tmp, Duration.ofSeconds(2))) {
            HostModel m = HostCollection.standard(CollectorConfig.DEFAULT).collect(live);
            for (CollectorRun r : m.collectors()) {
                assertThat(r.ok()).as(r.name() + " " + r.errors()).isTrue();
            }
            List<ReadError> ethtool = errors(m, "ethtool");
            assertThat(ethtool).extracting(ReadError::path)
                    .containsExactlyInAnyOrder("ethtool -S veth0", "ethtool -a veth0", "ethtool -S veth1", "ethtool -a veth1");
            assertThat(ethtool).extracting(ReadError::error).containsOnly("ENODEV");
            assertThat(errors(m, "dcb")).extracting(ReadError::path).containsExactlyInAnyOrder("RTM_GETDCB veth0", "RTM_GETDCB veth1");
            assertThat(errors(m, "dcb")).extracting(ReadError::error).containsOnly("ENODEV");
            assertThat(errors(m, "rdma")).isEmpty();
            assertThat(m.ports()).hasSize(2).allSatisfy(p -> {
                assertThat(p.state()).isNotNull();
                assertThat(p.hwCounters()).isNotEmpty();
            });
            assertThat(m.netdevs()).extracting(n -> n.name()).contains("veth0", "veth1");
            assertThat(m.netdevs()).allSatisfy(n -> assertThat(n.mtu()).isNotNull());
        }
    }

    private static List<ReadError> errors(HostModel m, String collector) {
        return m.collectors().stream().filter(r -> r.name().equals(collector)).findFirst().orElseThrow().errors();
    }
}
