package io.fabricd.collectors.source;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

/**
 * Files kept open from one collection to the next and read again from offset 0 (issue 7): a
 * collection reads the same few hundred files every time, and opening and closing one costs the
 * kernel a path walk, an fstat and a close — 2.45 ms per collection on the demo host's 606 files
 * against 0.30 ms to read them again through kept descriptors (bench/read-floor.c's files, C,
 * docs/benchmarks.md). A sysfs attribute generates its text anew on every read from offset 0 (the
 * kernel's seq_file resets at position 0), so a kept file reads what a fresh open would.
 *
 * <p>When a kept file stops being the file its path names:
 * <ul>
 *   <li>the live host: a removed device's attributes answer ENODEV (kernfs deactivates them), and
 *       any failed read closes the kept file and opens the path afresh, which tells the truth
 *       (ENOENT, or the new device's file). Renames (an RDMA device, a netdev moving to another
 *       port) change a listing that {@code StableFacts} watches, which drops every kept file
 *       ({@link #closeAll}), as does its refresh ({@code collection.identity_refresh}).</li>
 *   <li>a snapshot folder: files can be deleted or replaced while their old contents stay readable
 *       through a kept descriptor, so a folder's identity and modification time are checked once per
 *       collection before its kept files are read ({@link #collectionStarts}); a changed folder
 *       closes them. Files are kept only in folders unchanged for {@link #QUIET_MILLIS}: a change
 *       in the same clock tick as the check (file times are as coarse as a jiffy) would go unseen.</li>
 * </ul>
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
    /** A folder must be unchanged this long before files in it are kept (snapshot folders). */
    static final long QUIET_MILLIS = 2_000;

    private static final class Folder {
        final String name;
        final Path path;
        final Object key;
        final long modifiedMillis;
        final List<String> files = new ArrayList<>();
        volatile long checkedIn;

        Folder(String name, Path path, Object key, long modifiedMillis, long epoch) {
            this.name = name;
            this.path = path;
            this.key = key;
            this.modifiedMillis = modifiedMillis;
            this.checkedIn = epoch;
        }
    }

    private static final class Kept {
        final FileChannel file;
        final Folder folder;
        final AtomicBoolean busy = new AtomicBoolean();

        Kept(FileChannel file, Folder folder) {
            this.file = file;
            this.folder = folder;
        }
    }

    private volatile int max;
    private final boolean checkFolders;
    private final LongSupplier wallMillis;
    private final Map<String, Kept> files = new ConcurrentHashMap<>();
    private final Map<String, Folder> folders = new ConcurrentHashMap<>();
    /** Files read once: kept on their second read (identity files read once per refresh never are). */
    private final java.util.Set<String> seen = ConcurrentHashMap.newKeySet();
    private volatile long epoch;

    /**
     * Keeps nothing until {@link #limit}.
     *
     * @param checkFolders check each kept file's folder once per collection (snapshot folders)
     * @param wallMillis   the wall clock, to compare with folder modification times
     */
    KeptFiles(boolean checkFolders, LongSupplier wallMillis) {
        this.checkFolders = checkFolders;
        this.wallMillis = wallMillis;
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

    /** A new collection: folders are checked again before their kept files are read. */
    void collectionStarts() {
        epoch++;
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
            if (k.folder != null && !current(k.folder)) {
                closeFolder(k.folder);
            } else if (k.busy.compareAndSet(false, true)) {
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
        Folder folder = null;
        if (files.size() < max && !files.containsKey(key) && !firstRead(key)) {
            folder = checkFolders ? folderToKeepIn(file) : null;
            if (checkFolders && folder == null) {
                return SmallFiles.read(file, hostPath, maxBytes, endsBelow);
            }
        } else {
            return SmallFiles.read(file, hostPath, maxBytes, endsBelow);
        }
        FileChannel channel = new RandomAccessFile(file, "r").getChannel(); // closing the channel closes the file
        boolean keep = false;
        try {
            String text = SmallFiles.readAgain(channel, hostPath, maxBytes, endsBelow);
            keep = keep(key, channel, folder);
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

    private boolean keep(String key, FileChannel channel, Folder folder) {
        // one collection thread keeps files: the limit may be passed by a racing read, never far
        if (files.size() >= max || files.putIfAbsent(key, new Kept(channel, folder)) != null) {
            return false;
        }
        if (folder != null) {
            synchronized (folder) {
                folder.files.add(key);
            }
        }
        return true;
    }

    /** The folder of {@code file} when files may be kept in it (unchanged for QUIET_MILLIS), else null. */
    private Folder folderToKeepIn(String file) {
        int slash = file.lastIndexOf('/');
        String dir = slash <= 0 ? "/" : file.substring(0, slash);
        Folder f = folders.get(dir);
        if (f != null) {
            if (current(f)) {
                return f;
            }
            closeFolder(f);
        }
        Path p = Path.of(dir);
        BasicFileAttributes a = attributes(p);
        if (a == null || wallMillis.getAsLong() - a.lastModifiedTime().toMillis() < QUIET_MILLIS) {
            return null;
        }
        Folder fresh = new Folder(dir, p, a.fileKey(), a.lastModifiedTime().toMillis(), epoch);
        Folder raced = folders.putIfAbsent(dir, fresh);
        return raced != null ? raced : fresh;
    }

    /** True when the folder was unchanged when last checked in this collection (checked now if not yet). */
    private boolean current(Folder f) {
        long e = epoch;
        if (f.checkedIn == e) {
            return true;
        }
        BasicFileAttributes a = attributes(f.path);
        if (a == null || !Objects.equals(a.fileKey(), f.key) || a.lastModifiedTime().toMillis() != f.modifiedMillis) {
            return false;
        }
        f.checkedIn = e;
        return true;
    }

    private static BasicFileAttributes attributes(Path p) {
        try {
            return Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private void closeFolder(Folder f) {
        List<String> keys;
        synchronized (f) {
            keys = List.copyOf(f.files);
            f.files.clear();
        }
        for (String key : keys) {
            Kept k = files.get(key);
            if (k != null) {
                drop(key, k);
            }
        }
        folders.remove(f.name, f);
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
        folders.clear();
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
