package io.fabricd.probes;

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
        long now = nanos.getAsLong();
        tokens = Math.min(burst, tokens + (now - last) * ratePerNano);
        last = now;
        if (tokens >= 1) {
            tokens -= 1;
            return true;
        }
        return false;
    }
}
