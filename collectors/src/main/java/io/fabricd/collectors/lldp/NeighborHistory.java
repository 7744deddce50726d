package io.fabricd.collectors.lldp;

import java.util.HashMap;
import java.util.Map;

/**
 * What the lldp stage remembers of each netdev's neighbour from one collection to the next, to count
 * changes (a flapping neighbour) and how many collections in a row it stayed the same. Kept by the
 * stage, so it lives as long as the agent's collection loop; a one-shot collection starts from nothing.
 */
final class NeighborHistory {
    /** Collections in a row a neighbour must stay the same when lldpd does not say its age. */
    static final int STABLE_COLLECTIONS = 3;

    private final Map<String, State> byNetdev = new HashMap<>();

    /**
     * A netdev's neighbour so far: its identity, collections seen in a row, changes counted, and whether
     * this run of collections began with a change the agent saw (not with the agent's first look).
     */
    record State(String identity, int inARow, int changes, boolean afterChange) {
    }

    /** Records this collection's identity for {@code netdev} (null: several neighbours at once) and returns the state. */
    synchronized State seen(String netdev, String identity) {
        State before = byNetdev.get(netdev);
        State now;
        if (before == null) {
            now = new State(identity, 1, identity == null ? 1 : 0, identity == null);
        } else if (identity != null && identity.equals(before.identity())) {
            now = new State(identity, before.inARow() + 1, before.changes(), before.afterChange());
        } else {
            now = new State(identity, 1, before.changes() + 1, true);
        }
        byNetdev.put(netdev, now);
        return now;
    }
}
