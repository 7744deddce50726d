package io.fabricd.collectors;

import io.fabricd.collectors.run.HostCollection;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabricd.collectors.netdev.NetdevCollector;
import io.fabricd.collectors.rdma.RdmaCollector;
import io.fabricd.collectors.verbs.PortAttrsCollector;
import io.fabricd.collectors.verbs.QpCollector;
import io.fabricd.collectors.verbs.VerbsSlice;
import io.fabricd.model.CollectorRun;
import io.fabricd.model.HostModel;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * A stage that throws fails only itself: the others' slices and the collection stand, and the
 * stages that need its slice run without it.
 */
class FailureIsolationTest {

    /** A stage that throws what {@code thrown} makes; its slice type is any one no other stage of the collection produces. */
    private record Throwing(String name, Class<?> slice, Supplier<Throwable> thrown) implements Stage<Object> {
        @Override
        @SuppressWarnings("unchecked")
        public Class<Object> produces() {
            return (Class<Object>) slice;
        }

        @Override
        public Object collect(CollectContext ctx, Slices in) {
            Throwable t = thrown.get();
            if (t instanceof RuntimeException r) {
                throw r;
            }
            throw (Error) t;
        }
    }

    private static HostModel collect(Stage<?>... between) {
        List<Stage<?>> all = new ArrayList<>();
        all.add(new RdmaCollector());
        all.addAll(List.of(between));
        all.add(new NetdevCollector());
        return new HostCollection(all, CollectorConfig.DEFAULT, Clock.systemUTC()).collect(Fixtures.open("host-b-roce"));
    }

    @Test
    void aRuntimeExceptionOrAnErrorFromJnaFailsOnlyItsCollector() {
        HostModel clean = collect();
        HostModel m = collect(new Throwing("bug", Integer.class, () -> new IllegalStateException("a bug")),
                new Throwing("jna", Long.class, () -> new Error("Invalid memory access")), // what JNA throws on a bad pointer
                new Throwing("shim", Short.class, () -> new UnsatisfiedLinkError("libfabricd_verbs.so: cannot open")),
                new Throwing("deep", Byte.class, StackOverflowError::new));

        assertThat(m.devices()).isNotEmpty().isEqualTo(clean.devices());
        assertThat(m.netdevs()).isNotEmpty().isEqualTo(clean.netdevs());
        assertThat(m.collectors()).extracting(CollectorRun::name).containsExactly("rdma", "bug", "jna", "shim", "deep", "netdev");
        for (CollectorRun r : m.collectors()) {
            boolean fails = !List.of("rdma", "netdev").contains(r.name());
            assertThat(r.ok()).as(r.name()).isEqualTo(!fails);
            if (fails) {
                assertThat(r.errors()).singleElement().satisfies(e -> assertThat(e.error()).startsWith("collector failed: "));
            }
        }
        assertThat(m.collectors().get(2).errors().get(0).error()).contains("Invalid memory access");
    }

    @Test
    void whatStopsTheJvmIsNotSwallowed() {
        assertThatThrownBy(() -> collect(new Throwing("oom", Integer.class, () -> new OutOfMemoryError("Java heap space"))))
                .isInstanceOf(OutOfMemoryError.class);
    }

    @Test
    void stagesRunAfterTheProducersOfWhatTheyNeed() {
        HostModel m = new HostCollection(List.of(new QpCollector(), new NetdevCollector(), new PortAttrsCollector(), new RdmaCollector()),
                CollectorConfig.DEFAULT, Clock.systemUTC()).collect(Fixtures.open("host-b-roce"));
        assertThat(m.collectors()).extracting(CollectorRun::name).containsExactly("rdma", "netdev", "verbs", "qp");
        assertThat(m.qps()).singleElement().satisfies(q -> assertThat(q.maxQp()).isEqualTo(262144L));
    }

    @Test
    void aMissingProducerOrACycleIsRefusedWhenTheCollectionIsMade() {
        assertThatThrownBy(() -> new HostCollection(List.of(new NetdevCollector()), CollectorConfig.DEFAULT, Clock.systemUTC()))
                .hasMessage("stage netdev needs RdmaSlice, which no stage of the collection produces");
        assertThatThrownBy(() -> new HostCollection(List.of(new A("a"), new B("b")), CollectorConfig.DEFAULT, Clock.systemUTC()))
                .hasMessage("stages need each other's slices: a -> b -> a");
        assertThatThrownBy(() -> new HostCollection(List.of(new RdmaCollector(), new RdmaCollector()), CollectorConfig.DEFAULT,
                Clock.systemUTC())).hasMessage("stages rdma and rdma both produce RdmaSlice");
        // the shipped stages satisfy one another's needs (the constructor checks it)
        assertThat(HostCollection.standard(CollectorConfig.DEFAULT)).isNotNull();
    }

    /** A and B each need the other's slice: a cycle. */
    private record A(String name) implements Stage<A> {
        @Override
        public Class<A> produces() {
            return A.class;
        }

        @Override
        public List<Class<?>> needs() {
            return List.of(B.class);
        }

        @Override
        public A collect(CollectContext ctx, Slices in) {
            return this;
        }
    }

    private record B(String name) implements Stage<B> {
        @Override
        public Class<B> produces() {
            return B.class;
        }

        @Override
        public List<Class<?>> needs() {
            return List.of(A.class);
        }

        @Override
        public B collect(CollectContext ctx, Slices in) {
            return this;
        }
    }

    @Test
    void aStageThatThrowsLeavesItsDependentsDegradedNotFailed() {
        HostModel m = new HostCollection(List.of(new RdmaCollector(), new NetdevCollector(),
                new Throwing("verbs", VerbsSlice.class, () -> new IllegalStateException("a bug")), new QpCollector()), CollectorConfig.DEFAULT,
                Clock.systemUTC()).collect(Fixtures.open("host-b-roce"));
        assertThat(m.collector("verbs").orElseThrow().ok()).isFalse();
        assertThat(m.collector("qp").orElseThrow().ok()).isTrue();
        assertThat(m.collector("qp").orElseThrow().errors()).isEmpty();
        assertThat(m.qps()).singleElement().satisfies(q -> {
            assertThat(q.byState()).containsEntry("RTS", 2).containsEntry("ERR", 1);
            assertThat(q.maxQp()).as("the verbs stage's, which failed").isNull();
        });
        assertThat(m.portAttrs()).isEmpty();
    }
}
