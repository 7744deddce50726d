package io.fabricd.gate;

import java.time.Duration;

/** The time budget of one preflight run (--timeout): every phase and call ends by its deadline. */
public final class Budget {
    private final long start;
    private final long deadline;
    private final long total;

    public Budget(Duration total) {
        this.start = System.nanoTime();
        this.total = total.toNanos();
        this.deadline = start + this.total;
    }

    /** Time left, never negative. */
    public Duration left() {
        return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    }

    /** The System.nanoTime by which what is left less {@code keep} is over (a loop's deadline). */
    public long deadline(Duration keep) {
        return deadline - keep.toNanos();
    }

    /** Time since the start. */
    public Duration elapsed() {
        return Duration.ofNanos(System.nanoTime() - start);
    }

    public Duration total() {
        return Duration.ofNanos(total);
    }

    /**
     * How long a phase may take: at most {@code cap}, and what is left less {@code keep} (the time
     * the later phases and the output need); zero when nothing is left for it.
     */
    public Duration phase(Duration cap, Duration keep) {
        Duration d = left().minus(keep);
        if (d.isNegative()) {
            return Duration.ZERO;
        }
        return d.compareTo(cap) < 0 ? d : cap;
    }

    /** {@code share} of the whole budget. */
    public Duration share(double share) {
        return Duration.ofNanos((long) (total * share));
    }

    /** {@code share} of the time left. */
    public Duration partOfLeft(double share) {
        return Duration.ofNanos((long) (left().toNanos() * share));
    }
}
