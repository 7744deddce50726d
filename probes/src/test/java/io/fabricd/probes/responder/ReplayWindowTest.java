package io.fabricd.probes.responder;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.probes.responder.ReplayWindow.Verdict;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class ReplayWindowTest {
    private static final long NOW = 1_800_000_000_000L;

    @Test
    void eachSequenceOnceWithinTheWindowAndNothingTooOld() {
        ReplayWindow w = new ReplayWindow();
        assertThat(w.check(1, 5, NOW, NOW)).isEqualTo(Verdict.OK);
        assertThat(w.check(1, 5, NOW, NOW)).isEqualTo(Verdict.REPLAYED);
        assertThat(w.check(1, 3, NOW, NOW)).isEqualTo(Verdict.OK); // reordered: still once
        assertThat(w.check(1, 3, NOW, NOW)).isEqualTo(Verdict.REPLAYED);
        assertThat(w.check(1, 200, NOW, NOW)).isEqualTo(Verdict.OK);
        assertThat(w.check(1, 100, NOW, NOW)).isEqualTo(Verdict.REPLAYED); // fell out of the 64-wide window
        assertThat(w.check(1, 199, NOW, NOW)).isEqualTo(Verdict.OK);
        assertThat(w.check(2, 5, NOW, NOW)).isEqualTo(Verdict.OK); // another session
        assertThat(w.check(3, 0, NOW - 30_001, NOW)).isEqualTo(Verdict.STALE);
        assertThat(w.check(3, 0, NOW + 30_001, NOW)).isEqualTo(Verdict.STALE);
        assertThat(w.check(3, -1, NOW, NOW)).isEqualTo(Verdict.STALE);
    }

    /** Seeded orders of one session's 1 000 sequences, each sent up to three times: every one accepted exactly once. */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 42, 2026})
    void anyOrderWithDuplicatesAcceptsEachSequenceAtMostOnce(long seed) {
        Random rnd = new Random(seed);
        ReplayWindow w = new ReplayWindow();
        Set<Long> accepted = new HashSet<>();
        for (long base = 0; base < 1000; base += 16) {
            long[] burst = new long[48];
            for (int i = 0; i < burst.length; i++) {
                burst[i] = base + rnd.nextInt(16); // within a burst: reordered and duplicated
            }
            for (long seq : burst) {
                if (w.check(7, seq, NOW, NOW) == Verdict.OK) {
                    assertThat(accepted.add(seq)).as("seq " + seq + " accepted twice").isTrue();
                }
            }
        }
        assertThat(accepted).isNotEmpty();
    }

    @Test
    void theSessionsRememberedAreBounded() {
        ReplayWindow w = new ReplayWindow();
        for (long s = 0; s < ReplayWindow.MAX_SESSIONS + 10; s++) {
            assertThat(w.check(s, 0, NOW, NOW)).isEqualTo(Verdict.OK);
        }
        // the most recent are still remembered
        assertThat(w.check(ReplayWindow.MAX_SESSIONS + 9, 0, NOW, NOW)).isEqualTo(Verdict.REPLAYED);
    }

    @Test
    void seenAsksWithoutRemembering() {
        ReplayWindow w = new ReplayWindow();
        assertThat(w.seen(1, 5, NOW, NOW)).isEqualTo(Verdict.OK);
        assertThat(w.seen(1, 5, NOW, NOW)).as("asking remembers nothing").isEqualTo(Verdict.OK);
        assertThat(w.check(1, 5, NOW, NOW)).isEqualTo(Verdict.OK);
        assertThat(w.seen(1, 5, NOW, NOW)).isEqualTo(Verdict.REPLAYED);
        assertThat(w.seen(1, 4, NOW, NOW)).isEqualTo(Verdict.OK);
        assertThat(w.seen(1, 6, NOW, NOW)).isEqualTo(Verdict.OK);
        w.check(1, 100, NOW, NOW);
        assertThat(w.seen(1, 36, NOW, NOW)).as("older than the window").isEqualTo(Verdict.REPLAYED);
        assertThat(w.seen(2, 0, NOW - 30_001, NOW)).isEqualTo(Verdict.STALE);
        assertThat(w.seen(2, -1, NOW, NOW)).isEqualTo(Verdict.STALE);
    }
}
