package io.fabricd.agent.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A round's 10 s: what the probes do not take is the peers' endpoints' (an agent just started on a
 * busy host can take seconds to give its endpoint the first time), never less than 2 s.
 */
class ProbeRoundBoundTest {
    @Test
    void theEndpointGetsWhatTheProbesLeaveOfTheRoundsBound() {
        // the gate's round: 50 probes at the default 10 ms, answers waited 1 s: 10 - 0.5 - 0.5 - 2
        assertThat(ProbeRound.endpointWithin(Duration.ofMillis(10), 50, Duration.ofSeconds(1))).isEqualTo(Duration.ofSeconds(7));
        // the most a round sends, within its 4 s: 3.5 s left
        assertThat(ProbeRound.endpointWithin(Duration.ofMillis(4), 1000, Duration.ofSeconds(1))).isEqualTo(Duration.ofMillis(3500));
        // never below the 2 s a peer's endpoint always had
        assertThat(ProbeRound.endpointWithin(Duration.ofMillis(8), 1000, Duration.ofSeconds(1))).isEqualTo(Duration.ofSeconds(2));
        // and with every part of the round in it, the round keeps to its bound
        for (int count : new int[] {1, 50, 200, 1000}) {
            Duration pace = Duration.ofSeconds(4).dividedBy(count);
            Duration total = ProbeRound.endpointWithin(pace, count, Duration.ofSeconds(1)).plus(pace.multipliedBy(count))
                    .plus(Duration.ofSeconds(2));
            assertThat(total).as(count + " probes").isLessThanOrEqualTo(ProbeRound.BOUND.minusMillis(500));
        }
    }
}
