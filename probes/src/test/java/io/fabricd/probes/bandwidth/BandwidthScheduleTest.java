package io.fabricd.probes.bandwidth;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.probes.verbs.VerbsPorts;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/** The slow schedule's turns, with a runner that records the tests it is asked for. */
class BandwidthScheduleTest {
    private static final VerbsPorts.Port PORT = new VerbsPorts.Port("mlx5_0", 1, 3, "Ethernet");
    private final List<String> asked = new ArrayList<>();
    private final Set<String> down = new HashSet<>();
    private List<String> plan = List.of("b:9530", "c:9530", "d:9530");
    private VerbsPorts.Port port = PORT;

    private BandwidthSchedule schedule() {
        return new BandwidthSchedule(() -> plan, () -> port, () -> null, (peer, p, local, o) -> {
            asked.add(peer);
            if (down.contains(peer)) {
                throw new IOException("cannot reach " + peer + ": connection refused");
            }
            return List.of(new BandwidthResult(peer, p.device(), "mlx5_1", "tx", o.size(), o.qps(), 1000, 1, 1, null, "unknown", 0));
        }, new BandwidthClient.Options(null, 65536, Duration.ofSeconds(5), 1, false, false));
    }

    @Test
    void eachTurnTestsTheNextPlannedPeer() {
        BandwidthSchedule s = schedule();
        for (int i = 0; i < 4; i++) {
            s.run();
        }
        assertThat(asked).containsExactly("b:9530", "c:9530", "d:9530", "b:9530");
        assertThat(s.results()).containsOnlyKeys("b:9530", "c:9530", "d:9530");
        // a peer that leaves the plan leaves the results
        plan = List.of("c:9530");
        s.run();
        assertThat(s.results()).containsOnlyKeys("c:9530");
    }

    @Test
    void aPeerThatCannotBeTestedIsLoggedOnceAndTriedOnItsNextTurn() {
        List<String> log = new ArrayList<>();
        Handler h = new Handler() {
            @Override
            public void publish(LogRecord r) {
                log.add(r.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger logger = Logger.getLogger(BandwidthSchedule.class.getName());
        logger.addHandler(h);
        try {
            plan = List.of("b:9530");
            down.add("b:9530");
            BandwidthSchedule s = schedule();
            s.run();
            s.run();
            assertThat(asked).containsExactly("b:9530", "b:9530");
            assertThat(log).hasSize(1);
            assertThat(log.get(0)).contains("b:9530 did not run: cannot reach b:9530: connection refused");
            assertThat(s.results()).isEmpty();
            down.clear();
            s.run();
            assertThat(s.results()).containsOnlyKeys("b:9530");
            assertThat(log).hasSize(2);
            assertThat(log.get(1)).contains("bandwidth test to b:9530 ran again");
        } finally {
            logger.removeHandler(h);
        }
    }

    @Test
    void withoutAPortOrPeersNothingRuns() {
        BandwidthSchedule s = schedule();
        port = null;
        s.run();
        plan = List.of();
        port = PORT;
        s.run();
        assertThat(asked).isEmpty();
        assertThat(s.results()).isEmpty();
    }
}
