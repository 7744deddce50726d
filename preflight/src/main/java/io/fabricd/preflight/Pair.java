package io.fabricd.preflight;

/** Two nodes to measure, {@code a} running the test to {@code b} (both directions are measured). */
public record Pair(String a, String b) {
    public Pair {
        if (a == null || b == null || a.equals(b)) {
            throw new IllegalArgumentException("a pair needs two different nodes");
        }
    }

    /** The same two nodes, whichever way round. */
    public boolean sameNodes(Pair other) {
        return a.equals(other.a) && b.equals(other.b) || a.equals(other.b) && b.equals(other.a);
    }

    /** The pair with its names in order, so that both ways round give one key. */
    public Pair unordered() {
        return a.compareTo(b) <= 0 ? this : new Pair(b, a);
    }
}
