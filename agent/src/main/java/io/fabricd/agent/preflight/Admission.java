package io.fabricd.agent.preflight;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.LongSupplier;

/**
 * Who may start now: at most one at a time, and at most {@code perMinute} starts in any minute.
 * A request that may not gets 429 with when to ask again, at once: nothing waits in a queue.
 */
final class Admission {
    /** Why not now, and in how many seconds to ask again. */
    record Refusal(String why, long retryAfterSeconds) {
        Answer answer() {
            return Answer.busy(why, retryAfterSeconds);
        }
    }

    private static final long MINUTE_MS = 60_000;

    private final String what;
    private final int perMinute;
    private final LongSupplier clock;
    private final Deque<Long> starts = new ArrayDeque<>();
    private boolean busy;
    private long busyUntil;

    /**
     * @param what  the thing admitted, in words ("a preflight probe round")
     * @param clock milliseconds, monotonic
     */
    Admission(String what, int perMinute, LongSupplier clock) {
        this.what = what;
        this.perMinute = perMinute;
        this.clock = clock;
    }

    /**
     * Takes the slot, expected to be held {@code expectedMillis}; null when taken, else why not.
     * The caller gives it back with {@link #leave()}.
     */
    synchronized Refusal enter(long expectedMillis) {
        long now = clock.getAsLong();
        if (busy) {
            long left = Math.max(1000, busyUntil - now);
            return new Refusal(what + " is running (about " + seconds(left) + " s left); one at a time: ask again later", seconds(left));
        }
        while (!starts.isEmpty() && now - starts.peekFirst() >= MINUTE_MS) {
            starts.removeFirst();
        }
        if (starts.size() >= perMinute) {
            long wait = starts.peekFirst() + MINUTE_MS - now;
            return new Refusal(perMinute + " " + plural() + " started in the last minute, the most a minute may have: ask again in "
                    + seconds(wait) + " s", seconds(wait));
        }
        starts.addLast(now);
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
