package io.fabricd.collectors;

import io.fabricd.collectors.run.HostCollection;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabricd.model.CollectorRun;
import io.fabricd.model.HostModel;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** collection.disabled_collectors: a disabled collector does not run, reads nothing, and is not reported. */
class DisabledCollectorsTest {

    @Test
    void aDisabledCollectorDoesNotRunAndTheOthersAreUnchanged() {
        HostModel all = HostCollection.standard(CollectorConfig.DEFAULT).collect(Fixtures.open("host-d-topology"));
        CollectorConfig noTopology = new CollectorConfig(List.of("*"), List.of(), Set.of("topology", "gpudirect"));
        CountingSource src = new CountingSource(Fixtures.open("host-d-topology"));
        HostModel some = HostCollection.standard(noTopology).collect(src);

        assertThat(all.pci()).isNotEmpty();
        assertThat(some.pci()).isEmpty();
        assertThat(some.gpuNicPaths()).isEmpty();
        assertThat(some.collectors()).extracting(CollectorRun::name).doesNotContain("topology", "gpudirect").contains("rdma", "netdev");
        assertThat(src.reads).noneMatch(p -> p.endsWith("/current_link_speed") || p.endsWith("/max_link_width"));
        assertThat(some.devices()).isEqualTo(all.devices());
        assertThat(some.netdevs()).isEqualTo(all.netdevs());
    }

    @Test
    void withoutTheVerbsStageQueuePairsAreStillCountedWithoutMaxQp() {
        HostModel m = HostCollection.standard(new CollectorConfig(List.of("*"), List.of(), Set.of("verbs")))
                .collect(Fixtures.open("host-b-roce"));
        assertThat(m.collectors()).extracting(CollectorRun::name).doesNotContain("verbs").contains("qp");
        assertThat(m.collector("qp").orElseThrow().ok()).isTrue();
        assertThat(m.portAttrs()).isEmpty();
        assertThat(m.qps()).singleElement().satisfies(q -> {
            assertThat(q.byState()).containsEntry("RTS", 2).containsEntry("ERR", 1);
            assertThat(q.maxQp()).isNull();
        });
    }

    @Test
    void anUnknownNameIsRefusedWithTheKnownOnes() {
        assertThatThrownBy(() -> HostCollection.validate(new CollectorConfig(List.of("*"), List.of(), Set.of("nvlink"))))
                .hasMessageContaining("unknown collector 'nvlink'").hasMessageContaining("topology");
        HostCollection.validate(new CollectorConfig(List.of("*"), List.of(), Set.of("rdma", "qp")));
    }
}
