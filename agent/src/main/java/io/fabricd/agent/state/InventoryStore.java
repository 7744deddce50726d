package io.fabricd.agent.state;

import io.fabricd.diagnosis.inventory.Inventory;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
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
import java.util.Optional;

/**
 * The host's expected inventory in the state folder ({@code --state-dir}, {@code state_dir}; the
 * Helm chart's hostPath, systemd's {@code StateDirectory}): {@code inventory.json}, written whole to a
 * new file and renamed over the old one, so a crash leaves the old or the new, never half of one.
 * Links are never followed: a state folder or file that is a symbolic link is refused (a user who
 * can write the folder's parent must not make root write elsewhere).
 */
public final class InventoryStore {
    public static final String FILE = "inventory.json";
    /** Where a live agent keeps its state when nothing else is said. */
    public static final Path DEFAULT_DIR = Path.of("/var/lib/fabricd");
    private static final long MAX_BYTES = 4 << 20;

    private final Path dir;

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
     * it cannot be read or is not an inventory.
     */
    public Optional<Inventory> load() {
        Path f = file();
        try {
            BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!a.isRegularFile()) {
                throw new IllegalArgumentException(f + " is not a regular file (a link or a folder): refused");
            }
            if (a.size() > MAX_BYTES) {
                throw new IllegalArgumentException(f + " is " + a.size() + " bytes, more than an inventory can be (" + MAX_BYTES + ")");
            }
            String json = Files.readString(f, StandardCharsets.UTF_8);
            try {
                return Optional.of(Inventory.fromJson(json));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(f + " is not a fabricd inventory: " + e.getMessage());
            }
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + f + ": " + e.getMessage());
        }
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
        if (Files.isSymbolicLink(dir)) {
            throw new IOException(dir + " is a symbolic link: refused as a state folder");
        }
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            Files.createDirectories(dir);
        }
        if (Files.isSymbolicLink(file())) {
            throw new IOException(file() + " is a symbolic link: refused");
        }
        byte[] bytes = inv.toJson().getBytes(StandardCharsets.UTF_8);
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
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
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
}
