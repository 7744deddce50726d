package io.fabricd.agent.state;

import io.fabricd.collectors.files.FolderChain;
import io.fabricd.diagnosis.inventory.Inventory;
import io.fabricd.diagnosis.inventory.InventoryFile;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * The host's expected inventory in the state folder ({@code --state-dir}, {@code state_dir}; the
 * Helm chart's hostPath, a systemd unit's {@code StateDirectory=fabricd}): {@code inventory.json}, written whole to a
 * new file and renamed over the old one, so a crash leaves the old or the new, never half of one.
 * The agent and {@code fabricd inventory accept} take {@code .lock} in the folder around each
 * read-change-write, so neither overwrites the other's. Links are never followed: a state folder
 * or file that is a symbolic link is refused for reading and writing alike (a user who can write
 * the folder's parent must not make root read or write elsewhere). Nothing is written in a state
 * folder that another user can change, nor under one ({@link FolderChain}): root alone (or the user
 * the agent runs as) may be able to write it and every folder above it.
 */
public final class InventoryStore {
    public static final String FILE = "inventory.json";
    /** Where a live agent keeps its state when nothing else is said. */
    public static final Path DEFAULT_DIR = Path.of("/var/lib/fabricd");
    static final long MAX_BYTES = 4 << 20;

    private final Path dir;

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

    public InventoryStore(Path dir) {
        this.dir = dir;
    }

    public Path dir() {
        return dir;
    }

    public Path file() {
        return dir.resolve(FILE);
    }

    /**
     * The stored inventory; empty when there is none. IllegalArgumentException naming the file when
     * it cannot be read or is not an inventory; {@link AccessDenied} when this process may not read it.
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
        if (e instanceof java.nio.file.NotDirectoryException) {
            return "not a folder";
        }
        if (e instanceof NoSuchFileException) {
            return "no such file or folder: " + ((NoSuchFileException) e).getFile();
        }
        if (e instanceof java.nio.file.FileSystemException f && f.getReason() != null) {
            return f.getReason().toLowerCase(java.util.Locale.ROOT);
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

    /** Writes the inventory (creating the folder, mode 0755, if it is missing); IOException with the reason. */
    public void save(Inventory inv) throws IOException {
        createFolder();
        if (Files.isSymbolicLink(file())) {
            throw new IOException(file() + " is a symbolic link: refused");
        }
        byte[] bytes = InventoryFile.write(inv).getBytes(StandardCharsets.UTF_8);
        Path tmp = null;
        for (int i = 0; tmp == null; i++) {
            Path t = dir.resolve("." + FILE + "." + ProcessHandle.current().pid() + "." + i + ".tmp");
            try (OutputStream out = Files.newOutputStream(t, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS)) {
                out.write(bytes);
                tmp = t;
            } catch (FileAlreadyExistsException e) {
                if (i > 100) {
                    throw e;
                }
            }
        }
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
                ch.force(true);
            }
            try {
                Files.move(tmp, file(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file(), StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
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
     * made) the work runs without the lock.
     */
    @SuppressWarnings("PMD.UnusedLocalVariable") // the lock is held for the block, never read
    public <T> T locked(Callable<T> work) throws Exception {
        try {
            createFolder();
        } catch (IOException e) {
            return work.call();
        }
        try (FileChannel ch = FileChannel.open(dir.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS); FileLock lock = ch.lock()) {
            return work.call();
        }
    }

    /** The folder, made if missing, checked: no links, and only root and this user can change it or a folder above it. */
    private void createFolder() throws IOException {
        refuseLinks();
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            FolderChain.checkNearest(dir);
            Files.createDirectories(dir);
            refuseLinks();
        }
        FolderChain.check(dir);
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
