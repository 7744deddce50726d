package io.fabricd.probes.bandwidth;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The wait for an idle compiler is bounded: a test never waits past it, whatever the JIT does. */
class CompilerQuietTest {

    @Test
    void neverWaitsPastItsBound() {
        Duration waited = CompilerQuiet.await(Duration.ofMillis(400));
        // idle for QUIET, or the bound; the scheduler may add a little either way
        assertThat(waited).isGreaterThanOrEqualTo(Duration.ofMillis(100)).isLessThan(Duration.ofMillis(400 + 1000));
        assertThat(CompilerQuiet.await(Duration.ZERO)).isLessThan(Duration.ofSeconds(1));
    }
}
