package io.fabricd.collectors;

import io.fabricd.collectors.run.HostCollection;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.collectors.source.CollectionRunner;
import io.fabricd.collectors.source.StableReads;
import io.fabricd.model.CollectorRun;
import io.fabricd.model.GpuNicPath;
import io.fabricd.model.HostModel;
import io.fabricd.model.RdmaPort;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The benchmark's big host (fixtures/host-f-big, tools/hostgen.py): 8 GPUs, 16 RoCE ports with full
 * counters, hw_counters and ~290 ethtool statistics each. Everything of it is read, cleanly, and the
 * same again by a repeating collection that keeps the hardware identity.
 */
class BigHostTest {
    @Test
    void everyPortGpuAndStatisticIsRead() {
        HostModel m = HostCollection.standard(CollectorConfig.DEFAULT).collect(Fixtures.open("host-f-big"));
        for (CollectorRun run : m.collectors()) {
            assertThat(run.errors()).as(run.name()).isEmpty();
            assertThat(run.ok()).as(run.name()).isTrue();
        }
        assertThat(m.devices()).hasSize(16);
        assertThat(m.ports()).hasSize(16).allSatisfy((RdmaPort p) -> {
            assertThat(p.counters()).hasSizeGreaterThanOrEqualTo(21);
            assertThat(p.hwCounters()).hasSizeGreaterThanOrEqualTo(29).doesNotContainKey("lifespan");
            assertThat(p.netdev()).isNotNull();
        });
        assertThat(m.netdevs()).hasSize(16).allSatisfy(n -> {
            assertThat(n.stats()).hasSizeGreaterThan(250);
            assertThat(n.dcb()).isNotNull();
            assertThat(n.mtu()).isEqualTo(9000);
        });
        assertThat(m.pci()).filteredOn(f -> f.kind().equals("gpu")).hasSize(8);
        assertThat(m.gpuNicPaths()).hasSize(8 * 16);
        assertThat(m.gpuNicPaths()).filteredOn(p -> "PIX".equals(p.path())).hasSize(16)
                .extracting(GpuNicPath::gpu).doesNotContainNull();
        assertThat(m.gpuNicPaths().stream().filter(p -> "PIX".equals(p.path())).map(GpuNicPath::gpu).distinct()).hasSize(8);
    }

    @Test
    void aRepeatingCollectionReadsTheSameHost() {
        HostCollection repeating = new HostCollection(HostCollection.defaultCollectors(), CollectorConfig.DEFAULT,
                Clock.systemUTC(), new StableReads(Duration.ofMinutes(5), System::nanoTime), CollectionRunner.CALLER);
        HostModel first = repeating.collect(Fixtures.open("host-f-big"));
        HostModel again = repeating.collect(Fixtures.open("host-f-big"));
        assertThat(again.devices()).isEqualTo(first.devices());
        assertThat(again.pci()).isEqualTo(first.pci());
        assertThat(again.netdevs()).isEqualTo(first.netdevs());
    }
}
