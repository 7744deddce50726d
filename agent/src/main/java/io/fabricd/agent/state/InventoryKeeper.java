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
 * folder) is moved aside and this host's learned. An inventory another user could have written is
 * neither judged against nor moved nor written over: it is left for someone to look at, and the
 * inventory kept in memory until it is removed or replaced. Without a state folder, or when it
 * cannot be written, the inventory lives in memory only (said once in the log); so it does for a
 * collection that finds the folder's lock held by another process for longer than {@link
 * InventoryStore#LOCK_WAIT}, so that no lock stops a collection. At the first collection the folder
 * is made private to the agent's user (said once, when something was open to others). Used on the
 * collection thread only.
 */
public final class InventoryKeeper {
    private static final Logger LOG = Logger.getLogger(InventoryKeeper.class.getName());

    private final InventoryStore store;
    private Inventory current;
    private InventoryStore.Stamp seen;
    private boolean saidCannotWrite;
    private boolean saidUnreadable;
    private boolean saidBusy;
    private boolean saidUntrusted;
    private boolean madePrivate;
    /** The file is another user's, or others could write it: never written over. */
    private boolean untrusted;
    /** A change kept in memory while the lock was held by another process: written at the next collection. */
    private boolean unsaved;

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
        if (!madePrivate) {
            madePrivate = true;
            makePrivate();
        }
        try {
            return store.locked(() -> observeLocked(m));
        } catch (InventoryStore.Busy e) {
            if (!saidBusy) {
                saidBusy = true;
                LOG.warning("the lock " + e.getMessage() + ": this collection's inventory is kept in memory, not written (the next "
                        + "collection tries again). If this lasts, find the process that holds it: fuser -v " + store.dir().resolve(
                        InventoryStore.LOCK) + " (a `fabricd inventory accept` that does not end, or a process that locks the file)");
            }
            Inventory n = next(m);
            unsaved |= n != current;
            current = n;
            return current;
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
        saidBusy = false;
        InventoryStore.Stamp now = store.stamp();
        if (current == null || !Objects.equals(now, seen)) {
            untrusted = false;
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
                saidUntrusted = false;
            } catch (StateAccess.Untrusted e) {
                untrusted(e);
            } catch (IllegalArgumentException | IOException e) {
                unreadable(e);
            }
            seen = store.stamp();
        }
        Inventory next = next(m);
        // written when it changed, and when the file is gone (deleted, or moved aside as unreadable)
        if (!untrusted && (next != current || unsaved || seen == null && !saidCannotWrite)) {
            current = next;
            save();
        }
        current = next;
        return current;
    }

    /** A file another user could have written: left where it is, for someone to look at, and not written over. */
    private void untrusted(StateAccess.Untrusted e) {
        untrusted = true;
        if (!saidUntrusted) {
            saidUntrusted = true;
            LOG.warning(e.getMessage() + "; left in place and not written over: " + (current != null ? "the inventory in memory is kept"
                    : "the inventory is learned from this collection and kept in memory") + " until it is removed or replaced. Find out "
                    + "who wrote it, then remove it, or run `fabricd inventory accept` as root to replace it");
        }
    }

    /** The state folder made private to the agent's user, said once when it was not. */
    private void makePrivate() {
        try {
            String changed = store.makePrivate();
            if (!changed.isEmpty()) {
                LOG.info("the state folder " + store.dir() + " was open to other users, who could read the inventory and hold its "
                        + "lock: made private to the agent's user (" + changed + ")");
            }
        } catch (IOException | RuntimeException e) {
            // the folder cannot be used as it is: the first write says why
        }
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
        unsaved = false;
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
