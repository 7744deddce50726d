package io.fabricd.gate;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * How long a phase waits for its calls: calls that keep ending past the phase's least time (agents
 * just started on a busy host) are waited for, a call that never ends (a node that is down) is
 * cancelled once the others have ended, and never past the most.
 */
class FleetCallsTest {
    @Test
    void callsStillEndingPastTheLeastTimeAreWaitedForOneThatNeverEndsIsNot() {
        int n = 12;
        CountDownLatch[] go = new CountDownLatch[n];
        Map<String, FleetCalls.Call<String>> calls = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            CountDownLatch l = new CountDownLatch(1);
            go[i] = l;
            String name = "n" + i;
            calls.put(name, () -> {
                l.await();
                return name;
            });
        }
        calls.put("down", () -> {
            Thread.sleep(60_000);
            return "down";
        });
        Thread releaser = new Thread(() -> {
            try {
                // one call ends every 100 ms from 0.1 s to 1.2 s: past the least time of 0.3 s
                for (CountDownLatch l : go) {
                    Thread.sleep(100);
                    l.countDown();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try (FleetCalls fleet = new FleetCalls(FleetCalls.PARALLEL)) {
            long t0 = System.nanoTime();
            releaser.start();
            Map<String, FleetCalls.Outcome<String>> out = fleet.run(calls, Duration.ofMillis(300), Duration.ofSeconds(30),
                    Duration.ofSeconds(2));
            long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            for (int i = 0; i < n; i++) {
                assertThat(out.get("n" + i).value()).as(out.toString()).isEqualTo("n" + i);
            }
            assertThat(out.get("down").ok()).isFalse();
            assertThat(out.get("down").error()).startsWith("no answer within the time budget (");
            // the last end and the quiet time after it, not the 30 s most
            assertThat(took).isLessThan(TimeUnit.SECONDS.toMillis(30));
        }
    }

    @Test
    void withoutAnyEndThePhaseTakesItsLeastTimeAndWithinIsAHardBound() {
        Map<String, FleetCalls.Call<String>> down = new LinkedHashMap<>();
        down.put("a", () -> {
            Thread.sleep(60_000);
            return "a";
        });
        try (FleetCalls fleet = new FleetCalls(FleetCalls.PARALLEL)) {
            long t0 = System.nanoTime();
            Map<String, FleetCalls.Outcome<String>> out = fleet.run(down, Duration.ofMillis(300), Duration.ofSeconds(30),
                    Duration.ofSeconds(2));
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isLessThan(TimeUnit.SECONDS.toMillis(30));
            assertThat(out.get("a").error()).startsWith("no answer within the time budget");
            t0 = System.nanoTime();
            out = fleet.run(down, Duration.ofMillis(300));
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isLessThan(TimeUnit.SECONDS.toMillis(30));
            assertThat(out.get("a").ok()).isFalse();
        }
    }
}
