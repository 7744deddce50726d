package io.fabricd.collectors.source;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Files kept open from one collection to the next and read again from offset 0 (issue 7): a
 * collection reads the same few hundred files every time, and opening and closing one costs the
 * kernel a path walk, an fstat and a close — 2.45 ms per collection on the demo host's 606 files
 * against 0.30 ms to read them again through kept descriptors (bench/read-floor.c's files, C,
 * docs/benchmarks.md). A sysfs attribute generates its text anew on every read from offset 0 (the
 * kernel's seq_file resets at position 0), so a kept file reads what a fresh open would.
 *
 * <p>When a kept file stops being the file its path names (the live host only: snapshot folders are
 * opened afresh on every read, {@link BeneathRoot}): a removed device's attributes answer ENODEV
 * (kernfs deactivates them), and any failed read closes the kept file and opens the path afresh,
 * which tells the truth (ENOENT, or the new device's file). Renames (an RDMA device, a netdev moving
 * to another port) change a listing that {@code StableFacts} watches, which drops every kept file
 * ({@link #closeAll}), as does its refresh ({@code collection.identity_refresh}).
 *
 * <p>A kept file is a {@link FileChannel} read with positional reads ({@code pread} from offset 0:
 * one system call where a seek and a read were two). A channel is closed by an interrupt of a thread
 * reading it, and the interrupting thread then waits for that read to return: the live reader's
 * threads are never interrupted ({@link BoundedReader}), and an interrupted thread reads without
 * kept files.
 *
 * <p>A file is kept from its second read on (the hardware identity's files, read once per refresh,
 * never are). At most {@code max} files are kept; beyond that files are opened and closed as before. A kept
 * file is used by one read at a time: a read that hangs on the live host (its worker abandoned) keeps
 * its file busy for good, so later reads open the path afresh, and {@link #closeAll} leaves it open
 * rather than racing the hung read.
 */
final class KeptFiles {
    private static final class Kept {
        final FileChannel file;
        final AtomicBoolean busy = new AtomicBoolean();

        Kept(FileChannel file) {
            this.file = file;
        }
    }

    private volatile int max;
    private final Map<String, Kept> files = new ConcurrentHashMap<>();
    /** Files read once: kept on their second read (identity files read once per refresh never are). */
    private final java.util.Set<String> seen = ConcurrentHashMap.newKeySet();

    /** Keeps nothing until {@link #limit}. */
    KeptFiles() {
    }

    /** Keeps at most {@code files} open from now on (0: none, every read opens and closes); closes those kept. */
    void limit(int files) {
        max = Math.max(0, files);
        closeAll();
    }

    /** The most files this process keeps: a quarter of its descriptor limit, at most {@code wanted}. */
    static int bound(int wanted) {
        if (wanted <= 0) {
            return 0;
        }
        long limit = 0;
        if (java.lang.management.ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean u) {
            limit = u.getMaxFileDescriptorCount();
        }
        return bound(wanted, limit);
    }

    /** The most files a process with this descriptor limit keeps: a quarter of it, at most {@code wanted}. */
    static int bound(int wanted, long maxDescriptors) {
        if (maxDescriptors <= 0) {
            return wanted;
        }
        return (int) Math.max(0, Math.min(wanted, maxDescriptors / 4));
    }

    /** Files kept open now. */
    int size() {
        return files.size();
    }

    /**
     * The text of {@code file} (an absolute path), read through a kept descriptor when there is one,
     * else opened, read, and kept when there is room.
     *
     * @param key a stable name of the file (the path the caller was asked for)
     */
    String read(String key, String file, String hostPath, int maxBytes, int endsBelow) throws IOException {
        if (max == 0 || Thread.currentThread().isInterrupted()) {
            // an interrupted thread (the agent stopping) would close any channel it reads
            return SmallFiles.read(file, hostPath, maxBytes, endsBelow);
        }
        Kept k = files.get(key);
        if (k != null) {
            if (k.busy.compareAndSet(false, true)) {
                boolean failed = false;
                try {
                    return SmallFiles.readAgain(k.file, hostPath, maxBytes, endsBelow);
                } catch (HostReadException e) {
                    throw e;
                } catch (IOException e) {
                    failed = true; // opened afresh below: the fresh open tells what is there now
                } finally {
                    if (failed) {
                        files.remove(key, k);
                        closeQuietly(k.file);
                    } else {
                        k.busy.set(false);
                    }
                }
            }
        }
        if (files.size() >= max || files.containsKey(key) || firstRead(key)) {
            return SmallFiles.read(file, hostPath, maxBytes, endsBelow);
        }
        FileChannel channel = new RandomAccessFile(file, "r").getChannel(); // closing the channel closes the file
        boolean keep = false;
        try {
            String text = SmallFiles.readAgain(channel, hostPath, maxBytes, endsBelow);
            keep = keep(key, channel);
            return text;
        } finally {
            if (!keep) {
                channel.close();
            }
        }
    }

    private boolean firstRead(String key) {
        if (seen.contains(key)) {
            return false;
        }
        if (seen.size() < 4 * max) {
            seen.add(key);
        }
        return true;
    }

    private boolean keep(String key, FileChannel channel) {
        // one collection thread keeps files: the limit may be passed by a racing read, never far
        return files.size() < max && files.putIfAbsent(key, new Kept(channel)) == null;
    }

    /** Forgets a kept file and closes it, unless a read (a hung one) still uses it. */
    private void drop(String key, Kept k) {
        if (files.remove(key, k)) {
            if (k.busy.compareAndSet(false, true)) {
                closeQuietly(k.file);
            }
        }
    }

    /** Closes every kept file that no read is using (those a hung read holds stay open, forgotten). */
    void closeAll() {
        for (Map.Entry<String, Kept> e : files.entrySet()) {
            drop(e.getKey(), e.getValue());
        }
        seen.clear();
    }

    private static void closeQuietly(FileChannel f) {
        try {
            f.close();
        } catch (IOException e) {
            // nothing was written; the descriptor is gone either way
        }
    }
}
