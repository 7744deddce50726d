package io.fabricd.collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabricd.model.CollectorRun;
import io.fabricd.model.HostModel;
import io.fabricd.collectors.netdev.NetdevCollector;
import io.fabricd.collectors.rdma.RdmaCollector;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** A collector that throws fails only itself: the others' results and the collection stand. */
class FailureIsolationTest {

    /** A collector that throws what {@code thrown} makes. */
    private record Throwing(String name, Supplier<Throwable> thrown) implements Collector {
        @Override
        public void collect(CollectContext ctx) {
            Throwable t = thrown.get();
            if (t instanceof RuntimeException r) {
                throw r;
            }
            throw (Error) t;
        }
    }

    private static HostModel collect(Collector... between) {
        List<Collector> all = new ArrayList<>();
        all.add(new RdmaCollector());
        all.addAll(List.of(between));
        all.add(new NetdevCollector());
        return new HostCollection(all, CollectorConfig.DEFAULT, Clock.systemUTC()).collect(Fixtures.open("host-b-roce"));
    }

    @Test
    void aRuntimeExceptionOrAnErrorFromJnaFailsOnlyItsCollector() {
        HostModel clean = collect();
        HostModel m = collect(new Throwing("bug", () -> new IllegalStateException("a bug")),
                new Throwing("jna", () -> new Error("Invalid memory access")), // what JNA throws on a bad pointer
                new Throwing("shim", () -> new UnsatisfiedLinkError("libfabricd_verbs.so: cannot open")),
                new Throwing("deep", StackOverflowError::new));

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
        assertThatThrownBy(() -> collect(new Throwing("oom", () -> new OutOfMemoryError("Java heap space"))))
                .isInstanceOf(OutOfMemoryError.class);
    }

    @Test
    void aCollectorRunsAfterThoseItReadsFrom() {
        assertThatThrownBy(() -> new HostCollection(List.of(new NetdevCollector(), new RdmaCollector()), CollectorConfig.DEFAULT,
                Clock.systemUTC())).hasMessage("collector netdev reads rdma's results: rdma must run first");
        // the shipped order satisfies every collector's needs (the constructor checks it)
        assertThat(HostCollection.standard(CollectorConfig.DEFAULT)).isNotNull();
    }
}
