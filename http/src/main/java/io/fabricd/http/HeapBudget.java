package io.fabricd.http;

/**
 * How many HTTP connections the heap holds, so that no flood of connections can fill it,
 * whatever the number of its source addresses. Measured on the agent (-Xmx96m, Serial GC):
 * an idle connection costs ~8.3 KiB of heap once the event loop has built its pipeline (~1 KiB
 * while it waits for that); a connection holding an unfinished request head ~2.3 bytes of heap
 * per byte of head on top (Netty's decoder keeps the head as chars and header objects).
 *
 * <ul>
 *   <li>{@code http.max_connections}: at most what 3/8 of the heap holds at
 *       {@link #connectionBytes(int)} each (a full request head each): 459 with the launcher's
 *       96 MiB heap and the default head limits. Its default when not set.</li>
 *   <li>the absolute cap at accept ({@link AcceptGuard}): max_connections plus what 1/8 of the heap
 *       holds at {@link #ACCEPTED_BYTES} each (connections accepted but not handled yet): 1 225
 *       with 96 MiB. Beyond it a new connection is closed at accept whatever its source.</li>
 * </ul>
 *
 * Together at most half the heap, leaving the rest to the collections and the scrapes: a flood of
 * 15 000 connections from as many addresses left at most 27 MiB live in a 48 MiB heap
 * (IdleConnectionFloodIT). All in long arithmetic: no product here overflows, whatever the heap or
 * the configuration.
 *
 * <p>Answers written and not read by their clients yet ({@link UnreadAnswers}) sit in direct
 * memory, whose limit is the heap's size by default: at most a quarter of the heap, at least
 * {@link #MIN_UNREAD_BYTES} (24 MiB with 96 MiB).
 */
final class HeapBudget {
    /** An idle connection's heap, rounded down from the 8.3 KiB measured. */
    static final long IDLE_CONNECTION_BYTES = 8 << 10;
    /**
     * Heap per connection accepted beyond max_connections: its own (~1 KiB while it waits for the
     * event loop, 8 once registered) and that of the one it made the event loop close, which stays
     * reachable until the event loop has run its deregistration (queued behind the registrations).
     */
    static final long ACCEPTED_BYTES = 2 * IDLE_CONNECTION_BYTES;
    /** Heap per byte of an unfinished request head, rounded up from the 2.3 measured. */
    static final int HEAD_FACTOR = 3;
    /** The most http.max_connections may be (AgentConfig's range). */
    static final int MAX_CONNECTIONS = 1 << 20;
    /** The least room at accept beyond max_connections, however small the heap. */
    static final int MIN_ACCEPT_ROOM = 64;
    /** The least budget of unread answers, however small the heap: a few large answers. */
    static final long MIN_UNREAD_BYTES = 8L << 20;

    private HeapBudget() {
    }

    /** What one connection may make the heap hold: idle, plus its request head at the limits. */
    static long connectionBytes(int headBytes) {
        return IDLE_CONNECTION_BYTES + (long) HEAD_FACTOR * Math.max(0, headBytes);
    }

    /**
     * The most connections the heap allows: 3/8 of {@code heapBytes} at
     * {@link #connectionBytes(int)} each, at least 4, at most {@link #MAX_CONNECTIONS}.
     */
    static int maxConnections(long heapBytes, int headBytes) {
        long n = heapBytes / 8 * 3 / connectionBytes(headBytes);
        return (int) Math.max(4, Math.min(MAX_CONNECTIONS, n));
    }

    /**
     * The absolute cap of connections open or waiting for the event loop: {@code maxConnections}
     * plus 1/8 of the heap at {@link #ACCEPTED_BYTES} each (at least {@link #MIN_ACCEPT_ROOM}).
     */
    static int acceptCap(long heapBytes, int maxConnections) {
        long room = Math.max(MIN_ACCEPT_ROOM, heapBytes / 8 / ACCEPTED_BYTES);
        return (int) Math.min(Integer.MAX_VALUE - (long) MIN_ACCEPT_ROOM, Math.max(0, maxConnections) + room);
    }

    /**
     * Halfway from {@code maxConnections} to {@code acceptCap}: beyond it a source already holding
     * two connections gets no third at accept.
     */
    static int heavySourceCap(int maxConnections, int acceptCap) {
        return (int) (maxConnections + ((long) acceptCap - maxConnections) / 2);
    }

    /** The bytes of unread answers held at most: a quarter of the heap, at least {@link #MIN_UNREAD_BYTES}. */
    static long unreadBytes(long heapBytes) {
        return Math.max(MIN_UNREAD_BYTES, heapBytes / 4);
    }
}
