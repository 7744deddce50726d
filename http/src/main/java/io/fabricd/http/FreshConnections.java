package io.fabricd.http;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * Connections that have not sent a request yet, by source address, so that the one to close for
 * room is found in constant time however many are open: the oldest of the source that holds the
 * most such connections (of sources holding as many, the one that got to that count first).
 * A flood from few addresses loses its own connections, not a scraper's one unread connection; a
 * flood from many addresses, one or two connections each, loses its oldest.
 *
 * <p>Not thread-safe: {@link ConnectionLimits} calls it under its lock.
 *
 * @param <K> the connection
 */
final class FreshConnections<K> {
    /** Each source's fresh connections, oldest first. */
    private final Map<String, LinkedHashSet<K>> bySource = new HashMap<>();
    /** Sources by how many fresh connections they hold: index n holds those with n. */
    private final List<LinkedHashSet<String>> byCount = new ArrayList<>();
    private int most;
    private int size;

    void add(K c, String source) {
        LinkedHashSet<K> mine = bySource.computeIfAbsent(source, s -> new LinkedHashSet<>());
        if (mine.add(c)) {
            move(source, mine.size() - 1, mine.size());
            size++;
        }
    }

    /** Takes {@code c} out; false when it was not here. */
    boolean remove(K c, String source) {
        LinkedHashSet<K> mine = bySource.get(source);
        if (mine == null || !mine.remove(c)) {
            return false;
        }
        move(source, mine.size() + 1, mine.size());
        if (mine.isEmpty()) {
            bySource.remove(source);
        }
        size--;
        return true;
    }

    /** The oldest connection of the source holding the most; null when there is none. */
    K first() {
        if (size == 0) {
            return null;
        }
        String source = byCount.get(most).iterator().next();
        return bySource.get(source).iterator().next();
    }

    /** The source's count went from {@code from} to {@code to} (one apart). */
    private void move(String source, int from, int to) {
        if (from > 0) {
            byCount.get(from).remove(source);
        }
        if (to > 0) {
            while (byCount.size() <= to) {
                byCount.add(new LinkedHashSet<>());
            }
            byCount.get(to).add(source);
            most = Math.max(most, to);
        }
        while (most > 0 && byCount.get(most).isEmpty()) {
            most--;
        }
    }
}
