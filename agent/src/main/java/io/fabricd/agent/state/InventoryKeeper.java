package io.fabricd.agent.state;

import io.fabricd.collectors.model.HostModel;
import io.fabricd.diagnosis.inventory.Inventory;
import java.io.IOException;
import java.util.Objects;
import java.util.logging.Logger;

/**
 * The agent's expected inventory between collections: loaded from the state folder at the first
 * collection (or learned from it when there is none), grown by every collection and written back
 * when it grew; re-read when another process ({@code fabricd inventory accept}) replaced the file.
 * Without a state folder, or when it cannot be written, the inventory lives in memory only (and is
 * learned anew at the next start: said once in the log). Used on the collection thread only.
 */
public final class InventoryKeeper {
    private static final Logger LOG = Logger.getLogger(InventoryKeeper.class.getName());

    private final InventoryStore store;
    private Inventory current;
    private InventoryStore.Stamp seen;
    private boolean saidCannotWrite;

    /** @param store null: keep the inventory in memory only */
    public InventoryKeeper(InventoryStore store) {
        this.store = store;
    }

    /** The inventory after {@code m}: loaded, learned or grown, and written when it changed. */
    public Inventory observe(HostModel m) {
        if (store != null && (current == null || !Objects.equals(store.stamp(), seen))) {
            try {
                Inventory loaded = store.load().orElse(null);
                if (loaded != null) {
                    if (current != null) {
                        LOG.info("inventory " + store.file() + " was replaced (" + loaded.origin() + " " + loaded.acceptedAt()
                                + "): using it");
                    }
                    current = loaded;
                }
                seen = store.stamp();
            } catch (IllegalArgumentException e) {
                LOG.warning(e.getMessage() + "; learning the inventory anew from this collection and replacing the file");
                current = null;
            }
        }
        Inventory next = current == null ? Inventory.of(m, m.collectedAt(), Inventory.LEARNED) : current.learn(m);
        if (next != current) {
            if (current == null) {
                LOG.info("inventory learned from this collection: " + next.devices().size() + " RDMA devices, " + next.pci().size()
                        + " GPU/NIC functions" + (store == null ? " (kept in memory: no state folder)" : " (" + store.file() + ")"));
            }
            current = next;
            save();
        }
        return current;
    }

    public Inventory current() {
        return current;
    }

    private void save() {
        if (store == null) {
            return;
        }
        try {
            store.save(current);
            seen = store.stamp();
            saidCannotWrite = false;
        } catch (IOException | RuntimeException e) {
            if (!saidCannotWrite) {
                saidCannotWrite = true;
                LOG.warning("cannot write the inventory to " + store.file() + " (" + e.getMessage() + "): kept in memory, so a "
                        + "device that is gone when the agent restarts will not be noticed; give the agent a writable state folder "
                        + "(--state-dir, state_dir)");
            }
        }
    }
}
