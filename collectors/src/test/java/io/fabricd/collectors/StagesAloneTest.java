package io.fabricd.collectors;

import io.fabricd.collectors.run.HostCollection;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.collectors.netdev.NetdevCollector;
import io.fabricd.collectors.netdev.NetdevSlice;
import io.fabricd.collectors.rdma.RdmaCollector;
import io.fabricd.collectors.rdma.RdmaSlice;
import io.fabricd.collectors.verbs.QpCollector;
import io.fabricd.collectors.verbs.QpSlice;
import io.fabricd.collectors.verbs.VerbsSlice;
import io.fabricd.model.CollectorRun;
import io.fabricd.model.HostModel;
import io.fabricd.model.NetdevInfo;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each stage runs alone on a fixture, its input slices given directly. */
class StagesAloneTest {

    private static CollectContext ctx(String fixture) {
        return new CollectContext(Fixtures.open(fixture), CollectorConfig.DEFAULT);
    }

    @Test
    void theQpStageCountsFromTheSideCarWithTheMaxQpItIsGiven() {
        CollectContext rdmaCtx = ctx("host-b-roce");
        RdmaSlice rdma = new RdmaCollector().collect(rdmaCtx, Slices.of());
        assertThat(rdmaCtx.errors()).isEmpty();
        assertThat(rdma.devices()).extracting(d -> d.name()).containsExactly("mlx5_0");

        CollectContext c = ctx("host-b-roce");
        QpSlice qps = new QpCollector().collect(c, Slices.of(rdma, new VerbsSlice(List.of(), Map.of("mlx5_0", 7L))));
        assertThat(c.errors()).isEmpty();
        assertThat(qps.qps()).singleElement().satisfies(q -> {
            assertThat(q.byState()).containsEntry("RTS", 2).containsEntry("ERR", 1);
            assertThat(q.maxQp()).isEqualTo(7L);
        });
        // without the verbs slice: the same counts, max_qp unknown
        assertThat(new QpCollector().collect(ctx("host-b-roce"), Slices.of(rdma)).qps())
                .singleElement().satisfies(q -> assertThat(q.maxQp()).isNull());
    }

    @Test
    void theNetdevStageReadsTheNetdevsOfThePortsItIsGiven() {
        RdmaSlice rdma = new RdmaCollector().collect(ctx("host-b-roce"), Slices.of());
        NetdevSlice netdevs = new NetdevCollector().collect(ctx("host-b-roce"), Slices.of(rdma));
        assertThat(netdevs.netdevs()).extracting(NetdevInfo::name).isNotEmpty()
                .containsExactlyElementsOf(rdma.ports().stream().map(p -> p.netdev()).distinct().sorted().toList());
        assertThat(new NetdevCollector().collect(ctx("host-b-roce"), Slices.of()).netdevs()).as("no ports given").isEmpty();
    }

    /** Reads the RDMA slice without declaring it. */
    private record Sneaky(String name) implements Stage<Sneaky> {
        @Override
        public Class<Sneaky> produces() {
            return Sneaky.class;
        }

        @Override
        public Sneaky collect(CollectContext ctx, Slices in) {
            in.get(RdmaSlice.class);
            return this;
        }
    }

    @Test
    void aStageThatReadsASliceItDidNotDeclareFails() {
        HostModel m = new HostCollection(List.of(new RdmaCollector(), new Sneaky("sneaky")), CollectorConfig.DEFAULT,
                Clock.systemUTC()).collect(Fixtures.open("host-b-roce"));
        CollectorRun run = m.collector("sneaky").orElseThrow();
        assertThat(run.ok()).isFalse();
        assertThat(run.errors()).singleElement().satisfies(e -> assertThat(e.error())
                .contains("reads a RdmaSlice slice without declaring it in needs()"));
        assertThat(m.collector("rdma").orElseThrow().ok()).isTrue();
    }
}
