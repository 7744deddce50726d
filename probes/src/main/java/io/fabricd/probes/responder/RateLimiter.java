package io.fabricd.probes.responder;

import java.util.function.LongSupplier;

/** A token bucket: {@code rate} permits per second, up to {@code burst} at once. Not thread-safe. */
public final class RateLimiter {
    private final double ratePerNano;
    private final double burst;
    private final LongSupplier nanos;
    private double tokens;
    private long last;

    public RateLimiter(double perSecond, int burst, LongSupplier nanos) {
        if (!(perSecond > 0) || burst < 1) {
            throw new IllegalArgumentException("rate and burst must be positive");
        }
        this.ratePerNano = perSecond / 1e9;
        this.burst = burst;
        this.nanos = nanos;
        this.tokens = burst;
        this.last = nanos.getAsLong();
    }

    public RateLimiter(double perSecond, int burst) {
        this(perSecond, burst, System::nanoTime);
    }

    /** Nanoseconds until a permit is available; 0 when one is now (takes none). */
    public long nanosUntilPermit() {
        long now = nanos.getAsLong();
        double have = Math.min(burst, tokens + (now - last) * ratePerNano);
        return have >= 1 ? 0 : (long) Math.ceil((1 - have) / ratePerNano);
    }

    public boolean tryAcquire() {
        return tryAcquire(nanos.getAsLong());
    }

    /**
     * A permit for an event at {@code at} (the clock's nanoseconds, in the past: when a packet
     * arrived rather than when it is handled), so that events that came at the rate are let through
     * after a pause of the caller. Time never runs back: an event before the last one counts at
     * the last one's time.
     */
    public boolean tryAcquire(long at) {
        if (at - last > 0) {
            tokens = Math.min(burst, tokens + (at - last) * ratePerNano);
            last = at;
        }
        if (tokens >= 1) {
            tokens -= 1;
            return true;
        }
        return false;
    }
}
