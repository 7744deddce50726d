package io.fabricd.agent.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** One at a time, so many starts a minute and so much of their cost a minute, each refusal with when to ask again. */
class AdmissionTest {
    private final AtomicLong ms = new AtomicLong(1_000_000);
    private final Admission rounds = new Admission("a preflight probe round", 3, 100, "probes", ms::get);

    @Test
    void oneAtATime() {
        assertThat(rounds.enter(4000, 10)).isNull();
        ms.addAndGet(1500);
        Admission.Refusal r = rounds.enter(4000, 10);
        assertThat(r.why()).isEqualTo("a preflight probe round is running (about 3 s left); one at a time: ask again later");
        assertThat(r.retryAfterSeconds()).isEqualTo(3);
        rounds.leave();
        assertThat(rounds.enter(4000, 10)).isNull();
    }

    @Test
    void soManyStartsAMinute() {
        for (int i = 0; i < 3; i++) {
            assertThat(rounds.enter(100, 1)).isNull();
            rounds.leave();
            ms.addAndGet(10_000);
        }
        Admission.Refusal r = rounds.enter(100, 1);
        assertThat(r.why()).isEqualTo("3 preflight probe rounds started in the last minute, the most a minute may have: ask again in 30 s");
        assertThat(r.retryAfterSeconds()).isEqualTo(30);
        ms.addAndGet(30_000);
        assertThat(rounds.enter(100, 1)).isNull();
    }

    @Test
    void soMuchOfTheirCostAMinuteAskedAgainWhenEnoughHasLeftIt() {
        Admission rounds = new Admission("a preflight probe round", 10, 100, "probes", ms::get);
        assertThat(rounds.enter(100, 60)).isNull();
        rounds.leave();
        ms.addAndGet(20_000);
        assertThat(rounds.enter(100, 30)).isNull();
        rounds.leave();
        ms.addAndGet(20_000);
        // 90 of 100 asked: 11 more wait for the first start to leave the minute, 20 s on
        Admission.Refusal r = rounds.enter(100, 11);
        assertThat(r.why()).isEqualTo("90 probes asked of preflight probe rounds in the last minute, and this one's 11 would pass the 100 a"
                + " minute may have: ask again in 20 s");
        assertThat(r.retryAfterSeconds()).isEqualTo(20);
        // 10 fit now
        assertThat(rounds.enter(100, 10)).isNull();
        rounds.leave();
        // 71 wait for the first two starts: 40 s
        assertThat(rounds.enter(100, 71).retryAfterSeconds()).isEqualTo(40);
        ms.addAndGet(40_000);
        assertThat(rounds.enter(100, 71)).isNull();
    }
}
