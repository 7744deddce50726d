package io.fabricd.agent.preflight;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.LongSupplier;

/**
 * Who may start now: at most one at a time, at most {@code perMinute} starts in any minute, and at
 * most {@code unitsPerMinute} of what they cost (a round's probes) in any minute. A request that may
 * not gets 429 with when to ask again, at once: nothing waits in a queue.
 */
final class Admission {
    /** Why not now, and in how many seconds to ask again. */
    record Refusal(String why, long retryAfterSeconds) {
        Answer answer() {
            return Answer.busy(why, retryAfterSeconds);
        }
    }

    /** One start: when, and what it cost. */
    private record Start(long at, long units) {
    }

    private static final long MINUTE_MS = 60_000;

    private final String what;
    private final int perMinute;
    private final long unitsPerMinute;
    private final String units;
    private final LongSupplier clock;
    private final Deque<Start> starts = new ArrayDeque<>();
    private long unitsInMinute;
    private boolean busy;
    private long busyUntil;

    /**
     * @param what  the thing admitted, in words ("a preflight probe round")
     * @param units what a start costs, in words ("probes")
     * @param clock milliseconds, monotonic
     */
    Admission(String what, int perMinute, long unitsPerMinute, String units, LongSupplier clock) {
        this.what = what;
        this.perMinute = perMinute;
        this.unitsPerMinute = unitsPerMinute;
        this.units = units;
        this.clock = clock;
    }

    /**
     * Takes the slot for a start costing {@code cost} (at most {@code unitsPerMinute}), expected to be
     * held {@code expectedMillis}; null when taken, else why not. The caller gives it back with
     * {@link #leave()}.
     */
    synchronized Refusal enter(long expectedMillis, long cost) {
        long now = clock.getAsLong();
        if (busy) {
            long left = Math.max(1000, busyUntil - now);
            return new Refusal(what + " is running (about " + seconds(left) + " s left); one at a time: ask again later", seconds(left));
        }
        while (!starts.isEmpty() && now - starts.peekFirst().at() >= MINUTE_MS) {
            unitsInMinute -= starts.removeFirst().units();
        }
        if (starts.size() >= perMinute) {
            long wait = starts.peekFirst().at() + MINUTE_MS - now;
            return new Refusal(perMinute + " " + plural() + " started in the last minute, the most a minute may have: ask again in "
                    + seconds(wait) + " s", seconds(wait));
        }
        if (unitsInMinute + cost > unitsPerMinute) {
            // until enough of the minute's starts have left it for this one
            long freed = unitsInMinute;
            long wait = 0;
            for (Start s : starts) {
                freed -= s.units();
                wait = s.at() + MINUTE_MS - now;
                if (freed + cost <= unitsPerMinute) {
                    break;
                }
            }
            return new Refusal(unitsInMinute + " " + units + " asked of " + plural() + " in the last minute, and this one's " + cost
                    + " would pass the " + unitsPerMinute + " a minute may have: ask again in " + seconds(wait) + " s", seconds(wait));
        }
        starts.addLast(new Start(now, cost));
        unitsInMinute += cost;
        busy = true;
        busyUntil = now + expectedMillis;
        return null;
    }

    synchronized void leave() {
        busy = false;
    }

    private String plural() {
        return what.replaceFirst("^an? ", "") + "s";
    }

    private static long seconds(long millis) {
        return Math.max(1, (millis + 999) / 1000);
    }
}
