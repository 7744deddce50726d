package io.fabricd.agent.state;

import io.fabricd.collectors.files.FolderChain;
import io.fabricd.diagnosis.inventory.Inventory;
import io.fabricd.diagnosis.inventory.InventoryFile;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * The host's expected inventory in the state folder ({@code --state-dir}, {@code state_dir}; the
 * Helm chart's hostPath, a systemd unit's {@code StateDirectory=fabricd}): {@code inventory.json}, written whole to a
 * new file and renamed over the old one, so a crash leaves the old or the new, never half of one,
 * and a write that fails (a full disk) leaves no new file behind. The agent and {@code fabricd
 * inventory accept} take {@code .lock} in the folder around each read-change-write, so neither
 * overwrites the other's; a lock held longer than {@link #LOCK_WAIT} is {@link Busy}, never a
 * wait without end. Links are never followed: a state folder or file that is a symbolic link is
 * refused for reading and writing alike (a user who can write the folder's parent must not make
 * root read or write elsewhere). Nothing is written in a state folder that another user can
 * change, nor under one ({@link FolderChain}): root alone (or the user the agent runs as) may be
 * able to write it and every folder above it; a command run as root ({@link #forCommand}) also
 * writes into the agent's service user's own folder, for that user. What is made is private to its
 * user ({@link StateAccess}), and an inventory another user could have written is refused.
 */
public final class InventoryStore {
    public static final String FILE = "inventory.json";
    static final String LOCK = ".lock";
    /** Where a live agent keeps its state when nothing else is said. */
    public static final Path DEFAULT_DIR = Path.of("/var/lib/fabricd");
    static final long MAX_BYTES = 4 << 20;
    /** How long {@link #locked} waits for a lock another process holds. */
    public static final Duration LOCK_WAIT = Duration.ofSeconds(2);

    private final Path dir;
    /** A command's store: as root, also the folder of another user (the agent's), whose files are trusted and given what is written. */
    private final boolean forCommand;

    /**
     * The inventory file (or its folder) is there, but this process may not read it: a missing
     * privilege, not a broken file, so nothing is to be moved aside for it.
     */
    public static final class AccessDenied extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        AccessDenied(String message) {
            super(message);
        }
    }

    /**
     * The lock of the state folder is held by another process for longer than {@link #LOCK_WAIT}:
     * nothing was read or written.
     */
    public static final class Busy extends IOException {
        private static final long serialVersionUID = 1L;

        Busy(Path lock) {
            super(lock + " is held by another process (for more than " + LOCK_WAIT.toSeconds() + " s)");
        }
    }

    /** The agent's own state folder: this process's user's (or root's) alone. */
    public InventoryStore(Path dir) {
        this(dir, false);
    }

    private InventoryStore(Path dir, boolean forCommand) {
        this.dir = dir;
        this.forCommand = forCommand;
    }

    /**
     * The agent's state folder as a command run by an administrator uses it ({@code inventory
     * accept} and {@code show}, {@code diagnose}): run as root, the folder may also be the agent's
     * service user's ({@link FolderChain#checkForOwner}), whose inventory is trusted and to whom
     * what is written there is given, so that the agent reads it.
     */
    public static InventoryStore forCommand(Path dir) {
        return new InventoryStore(dir, true);
    }

    public Path dir() {
        return dir;
    }

    public Path file() {
        return dir.resolve(FILE);
    }

    /**
     * The stored inventory; empty when there is none. IllegalArgumentException naming the file when
     * it cannot be read or is not an inventory, or when another user could have written it (owned
     * by another than root, this user or, for a command, the folder's owner; writable by a group or
     * everybody); {@link AccessDenied} when this process may not read it.
     */
    public Optional<Inventory> load() {
        Path f = file();
        try {
            refuseLinkedFolder();
            BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!a.isRegularFile()) {
                throw new IllegalArgumentException(f + " is not a regular file (a link, a folder or a pipe): refused");
            }
            if (a.size() > MAX_BYTES) {
                throw new IllegalArgumentException(f + " is " + a.size() + " bytes, more than an inventory can be (" + MAX_BYTES + ")");
            }
            String json;
            try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
                // after the open: a file this process may not read says so, whoever it belongs to
                StateAccess.trust(f, forCommand ? folderOwner() : -1);
                ByteBuffer buf = ByteBuffer.allocate((int) MAX_BYTES + 1);
                while (buf.hasRemaining() && ch.read(buf) > 0) {
                    // read at most MAX_BYTES + 1, whatever the file grew to since its size was read
                }
                if (buf.position() > MAX_BYTES) {
                    throw new IllegalArgumentException(f + " is more than an inventory can be (" + MAX_BYTES + " bytes)");
                }
                json = new String(buf.array(), 0, buf.position(), StandardCharsets.UTF_8);
            }
            try {
                return Optional.of(InventoryFile.read(json));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(f + " is not a fabricd inventory: " + e.getMessage());
            }
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (AccessDeniedException e) {
            throw new AccessDenied("cannot read " + f + ": " + reason(e));
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + f + ": " + reason(e));
        }
    }

    /** An I/O failure in words: the kernel's reason (permission denied, read-only file system), not just a path. */
    public static String reason(IOException e) {
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof NotDirectoryException) {
            return "not a folder";
        }
        if (e instanceof NoSuchFileException) {
            return "no such file or folder: " + ((NoSuchFileException) e).getFile();
        }
        if (e instanceof FileSystemException f && f.getReason() != null) {
            return f.getReason().toLowerCase(Locale.ROOT);
        }
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }

    /** The file's modification time and size, to notice another process' write; null when there is no file. */
    public Stamp stamp() {
        try {
            BasicFileAttributes a = Files.readAttributes(file(), BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            return new Stamp(a.lastModifiedTime(), a.size(), a.fileKey());
        } catch (IOException e) {
            return null;
        }
    }

    public record Stamp(FileTime modified, long size, Object key) {
    }

    /**
     * Writes the inventory (creating the folder, mode 0700, if it is missing; the file 0600, given to
     * the folder's owner when a command writes for it); IOException with the reason. A write that
     * fails midway (a full disk) leaves the old file and no new one.
     */
    public void save(Inventory inv) throws IOException {
        FolderChain.Owner owner = createFolder();
        if (Files.isSymbolicLink(file())) {
            throw new IOException(file() + " is a symbolic link: refused");
        }
        ByteBuffer bytes = ByteBuffer.wrap(InventoryFile.write(inv).getBytes(StandardCharsets.UTF_8));
        Path tmp = null;
        FileChannel ch = null;
        for (int i = 0; ch == null; i++) {
            Path t = dir.resolve("." + FILE + "." + ProcessHandle.current().pid() + "." + i + ".tmp");
            try {
                ch = FileChannel.open(t, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
                        StateAccess.FILE);
                tmp = t;
            } catch (FileAlreadyExistsException e) {
                if (i > 100) {
                    throw e;
                }
            }
        }
        try {
            try (FileChannel out = ch) {
                while (bytes.hasRemaining()) {
                    out.write(bytes);
                }
                out.force(true);
            }
            StateAccess.give(tmp, owner);
            try {
                Files.move(tmp, file(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file(), StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException | RuntimeException e) {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException left) {
                e.addSuppressed(left);
            }
            throw e;
        }
    }

    /**
     * Makes the folder and this user's files in it private (folder 0700, files 0600) where an
     * agent before this rule, the Helm chart's hostPath or a umask of 022 left them open to other
     * users; what was changed, in words, empty when nothing (or when the folder is not there yet).
     */
    public String makePrivate() throws IOException {
        refuseLinks();
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return "";
        }
        FolderChain.check(dir);
        return StateAccess.makePrivate(dir);
    }

    /**
     * Moves an inventory file that cannot be read aside ({@code inventory.json.unreadable-<time>}),
     * never deleting what someone may want back; the path it went to.
     */
    public Path moveAside() throws IOException {
        refuseLinkedFolder();
        FolderChain.check(dir);
        Path aside = dir.resolve(FILE + ".unreadable-" + Instant.now().toString().replace(':', '-'));
        Files.move(file(), aside, StandardCopyOption.ATOMIC_MOVE);
        return aside;
    }

    /**
     * Runs {@code work} holding the folder's lock ({@code .lock}), which {@code fabricd inventory
     * accept} and the agent both take around a read-change-write. Without a folder (it cannot be
     * made) the work runs without the lock. {@link Busy} when another process holds the lock for
     * longer than {@link #LOCK_WAIT}: then nothing ran.
     */
    @SuppressWarnings("PMD.UnusedLocalVariable") // the lock is held for the block, never read
    public <T> T locked(Callable<T> work) throws Exception {
        FolderChain.Owner owner;
        try {
            owner = createFolder();
        } catch (IOException e) {
            return work.call();
        }
        Path file = dir.resolve(LOCK);
        try (FileChannel ch = FileChannel.open(file, Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS), StateAccess.FILE)) {
            StateAccess.give(file, owner); // a lock root made must be the agent's to open
            try (FileLock lock = tryLock(ch, file)) {
                return work.call();
            }
        }
    }

    /**
     * The lock of {@code ch}, waited for {@link #LOCK_WAIT} at most: a lock that another process
     * holds (any user who can open the file: a read lock is enough) must never stop a collection.
     */
    private static FileLock tryLock(FileChannel ch, Path file) throws IOException {
        long end = System.nanoTime() + LOCK_WAIT.toNanos();
        while (true) {
            try {
                FileLock lock = ch.tryLock();
                if (lock != null) {
                    return lock;
                }
            } catch (OverlappingFileLockException e) {
                // this JVM holds it already, through another channel: as busy as another process's
            }
            if (System.nanoTime() - end >= 0) {
                throw new Busy(file);
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting for " + file);
            }
        }
    }

    /**
     * The folder, made (mode 0700) if missing, checked: no links, and only root and this user can
     * change it or a folder above it; for a command run as root, also the agent's user's own
     * folder. The user to give what is written to (the folder's owner, root writing for it), or null.
     */
    private FolderChain.Owner createFolder() throws IOException {
        refuseLinks();
        StateAccess.createFolder(dir);
        refuseLinks();
        if (forCommand) {
            return FolderChain.checkForOwner(dir);
        }
        FolderChain.check(dir);
        return null;
    }

    /** The state folder's owner; -1 when it cannot be known. */
    private long folderOwner() throws IOException {
        try {
            return ((Integer) Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS)).longValue();
        } catch (UnsupportedOperationException e) {
            return -1;
        }
    }

    private void refuseLinkedFolder() {
        try {
            refuseLinks();
        } catch (IOException e) {
            throw new IllegalArgumentException(e.getMessage());
        }
    }

    /** The folder, and every folder above it that exists, must not be a symbolic link. */
    private void refuseLinks() throws IOException {
        for (Path p = dir.toAbsolutePath().normalize(); p != null; p = p.getParent()) {
            if (Files.isSymbolicLink(p)) {
                throw new IOException((p.equals(dir.toAbsolutePath().normalize()) ? dir : p + " (above " + dir + ")")
                        + " is a symbolic link: refused as a state folder (give its real path, a folder only root can write)");
            }
        }
    }
}
