package io.fabricd.probes.responder;

import java.util.concurrent.TimeUnit;

/**
 * One source's budget: answers per second (and burst), packets taken off its socket per second
 * ({@link UdpResponder#WORK_FACTOR} times as many), and when it last dropped a request itself — its answers
 * then say so for 10 s, and a requester does not blame the network for that loss. Shared by the
 * UDP and the verbs responder; used by one thread.
 */
public final class ResponderBudget {
    final RateLimiter answers;
    final RateLimiter work;
    private long lastOwnDrop;

    public ResponderBudget(double rate, int burst) {
        this.answers = new RateLimiter(rate, burst);
        this.work = new RateLimiter(rate * UdpResponder.WORK_FACTOR, burst * UdpResponder.WORK_FACTOR);
    }

    /** Dropped a request itself (rate limit), or left packets to the kernel (work bound). */
    void ownDrop() {
        lastOwnDrop = System.nanoTime();
    }

    boolean overloaded(long now) {
        return lastOwnDrop != 0 && now - lastOwnDrop < TimeUnit.SECONDS.toNanos(10);
    }
}
