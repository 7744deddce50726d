package io.fabricd.probes.responder;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/** What a responder did with what it received (thread-safe counters), for the UDP
 * and the verbs responders of an agent. */
public final class ResponderStats {
    private final AtomicLong answered = new AtomicLong();
    private final ConcurrentHashMap<String, AtomicLong> dropped = new ConcurrentHashMap<>();
    private final List<LongSupplier> kernel = new CopyOnWriteArrayList<>();
    /** Requests answered once: shared by every responder of the agent (UDP and verbs). */
    final ReplayWindow replays = new ReplayWindow();
    /** Sockets of known peers the UDP responder has open. */
    volatile int peerSockets;
    /** Sockets of known peers the UDP responder opened, closed ones included. */
    final AtomicLong peerSocketsOpened = new AtomicLong();
    /** Reads of /proc/net/udp for the kernel's drops. */
    final AtomicLong procfsReads = new AtomicLong();
    private volatile LongConsumer holds = nanos -> { };

    public int peerSocketCount() {
        return peerSockets;
    }

    /** Sockets of known peers the UDP responder opened since it started, closed ones included. */
    public long peerSocketsOpened() {
        return peerSocketsOpened.get();
    }

    /** How often the UDP responder read /proc/net/udp for its sockets' drops (none where libc reads them). */
    public long procfsReads() {
        return procfsReads.get();
    }

    public void answered() {
        answered.incrementAndGet();
    }

    /**
     * Where the UDP responder tells how long it held each request it answered, in nanoseconds from
     * the request's arrival at its socket to the answer's send (the agent's histogram).
     */
    public void onHold(LongConsumer sink) {
        holds = sink;
    }

    void held(long nanos) {
        holds.accept(nanos);
    }

    public void dropped(String reason) {
        dropped.computeIfAbsent(reason, r -> new AtomicLong()).incrementAndGet();
    }

    public long answeredCount() {
        return answered.get();
    }

    public long droppedCount(String reason) {
        if (reason.equals("overflow")) {
            long n = 0;
            for (LongSupplier k : kernel) {
                n += k.getAsLong();
            }
            return n;
        }
        AtomicLong a = dropped.get(reason);
        return a == null ? 0 : a.get();
    }

    /** Where the kernel's drops of a responder's sockets are read ("overflow"). */
    void kernelDrops(LongSupplier drops) {
        kernel.add(drops);
    }
}
