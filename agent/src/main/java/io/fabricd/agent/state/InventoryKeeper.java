package io.fabricd.agent.state;

import io.fabricd.model.HostModel;
import io.fabricd.diagnosis.inventory.Inventory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.logging.Logger;

/**
 * The agent's expected inventory between collections: loaded from the state folder at the first
 * collection (or learned from it when there is none), grown by every collection and written back
 * when it grew; re-read when another process ({@code fabricd inventory accept}) replaced the file,
 * under the folder's lock. What it never does: forget. A file that cannot be read is moved aside
 * (once) and the inventory in memory kept; an inventory of another host (a copied image, a shared
 * folder) is moved aside and this host's learned. Without a state folder, or when it cannot be
 * written, the inventory lives in memory only (said once in the log). Used on the collection thread
 * only.
 */
public final class InventoryKeeper {
    private static final Logger LOG = Logger.getLogger(InventoryKeeper.class.getName());

    private final InventoryStore store;
    private Inventory current;
    private InventoryStore.Stamp seen;
    private boolean saidCannotWrite;
    private boolean saidUnreadable;

    /** @param store null: keep the inventory in memory only */
    public InventoryKeeper(InventoryStore store) {
        this.store = store;
    }

    /** The inventory after {@code m}: loaded, learned or grown, and written when it changed. */
    public Inventory observe(HostModel m) {
        if (store == null) {
            current = next(m);
            return current;
        }
        try {
            return store.locked(() -> observeLocked(m));
        } catch (Exception e) {
            // the lock's own failure (an unwritable folder): judged against memory, said once
            if (!saidCannotWrite) {
                saidCannotWrite = true;
                LOG.warning("cannot use the state folder " + store.dir() + " (" + (e instanceof IOException io ? InventoryStore.reason(io)
                        : e.getMessage()) + "): the inventory is kept in memory");
            }
            current = next(m);
            return current;
        }
    }

    private Inventory observeLocked(HostModel m) {
        InventoryStore.Stamp now = store.stamp();
        if (current == null || !Objects.equals(now, seen)) {
            try {
                Inventory loaded = store.load().orElse(null);
                if (loaded != null && loaded.host() != null && !loaded.host().equals(m.hostname())) {
                    Path aside = store.moveAside();
                    LOG.warning(store.file() + " is the inventory of " + loaded.host() + ", not of " + m.hostname() + ": moved to "
                            + aside + "; learning this host's");
                    loaded = null;
                    current = null;
                }
                if (loaded != null) {
                    if (current != null) {
                        LOG.info("inventory " + store.file() + " was replaced (" + loaded.origin() + " " + loaded.acceptedAt() + "): using it");
                    }
                    current = loaded;
                }
                saidUnreadable = false;
            } catch (IllegalArgumentException | IOException e) {
                unreadable(e);
            }
            seen = store.stamp();
        }
        Inventory next = next(m);
        // written when it changed, and when the file is gone (deleted, or moved aside as unreadable)
        if (next != current || seen == null && !saidCannotWrite) {
            current = next;
            save();
        }
        current = next;
        return current;
    }

    /** A file that is not an inventory: moved aside once, the inventory in memory kept (or learned). */
    private void unreadable(Exception e) {
        String where;
        try {
            where = "moved to " + store.moveAside();
        } catch (IOException | RuntimeException moveFailed) {
            where = "left in place (" + moveFailed.getMessage() + ")";
        }
        if (!saidUnreadable) {
            saidUnreadable = true;
            LOG.warning(e.getMessage() + "; " + where + "; " + (current != null ? "keeping the inventory in memory"
                    : "learning the inventory anew from this collection"));
        }
    }

    private Inventory next(HostModel m) {
        if (current == null) {
            Inventory learned = Inventory.of(m, m.collectedAt(), Inventory.LEARNED);
            LOG.info("inventory learned from this collection: " + learned.devices().size() + " RDMA devices, " + learned.pci().size()
                    + " GPU/NIC functions" + (store == null ? " (kept in memory: no state folder)" : " (" + store.file() + ")"));
            return learned;
        }
        return current.learn(m);
    }

    private void save() {
        try {
            store.save(current);
            seen = store.stamp();
            saidCannotWrite = false;
        } catch (IOException | RuntimeException e) {
            seen = store.stamp();
            if (!saidCannotWrite) {
                saidCannotWrite = true;
                LOG.warning("cannot write the inventory to " + store.file() + " (" + (e instanceof IOException io ? InventoryStore.reason(io)
                        : e.getMessage()) + "): kept in memory, so a "
                        + "device that is gone when the agent restarts will not be noticed; give the agent a writable state folder "
                        + "(--state-dir, state_dir)");
            }
        }
    }
}
