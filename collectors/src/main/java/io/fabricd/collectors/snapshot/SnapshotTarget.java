package io.fabricd.collectors.snapshot;

import io.fabricd.collectors.files.FolderChain;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Where {@code fabricd snapshot --out DIR} writes, safely when run as root in a folder other users
 * can write to ({@code /tmp}):
 *
 * <ul>
 *   <li>everything is written into a fresh private folder ({@code 0700}, made by this process)
 *       beside {@code DIR}, so nobody can plant a link or a file among what is written;</li>
 *   <li>only when the whole snapshot is written is that folder renamed to {@code DIR} (one
 *       {@code rename(2)}: a killed or disk-full snapshot leaves no folder that {@code --root}
 *       would accept under {@code DIR}, and its leftovers are removed where the process lives to
 *       see the failure);</li>
 *   <li>an existing {@code DIR} must be an empty folder of this user, not a link; {@code rename(2)}
 *       replaces only an empty folder, so a folder swapped in meanwhile makes the rename fail, and
 *       a link swapped in is replaced, never followed;</li>
 *   <li>the folder {@code DIR} is made in, and every folder above it, can be changed only by root
 *       and this user ({@link FolderChain}): someone else could rename the private folder away
 *       between two writes and put a link to any folder in its place.</li>
 * </ul>
 *
 * Every refusal and I/O failure is an {@link IllegalArgumentException} with one line (exit 2).
 */
final class SnapshotTarget implements AutoCloseable {
    private final Path out;
    /** {@code --out} as the user gave it: every message names it so, never the private folder's name. */
    private final String given;
    private final Path staging;
    private boolean committed;

    private SnapshotTarget(Path out, String given, Path staging) {
        this.out = out;
        this.given = given;
        this.staging = staging;
    }

    /** Checks {@code out} and makes the private folder beside it. */
    static SnapshotTarget open(Path out) {
        String what = "--out " + out;
        Path abs = out.toAbsolutePath().normalize();
        Path parent = abs.getParent();
        if (parent == null) {
            throw new IllegalArgumentException(what + ": not a folder that can be written");
        }
        // what is in the way first: said about the path given, whatever its parent allows
        refuseNonFolder(out, what);
        Path shownParent = out.getParent() != null ? out.getParent() : parent;
        if (!Files.isDirectory(parent)) {
            throw new IllegalArgumentException(what + ": the folder " + shownParent
                    + (Files.exists(parent) ? " is a file, not a folder" : " does not exist"));
        }
        Path staging;
        Path realParent;
        try {
            // nobody else may rename the private folder away and put a link in its place (FolderChain)
            realParent = FolderChain.check(parent);
            // created with mode 0700 by this process, with a name nobody can predict
            staging = Files.createTempDirectory(realParent, "." + abs.getFileName() + ".fabricd-");
        } catch (FolderChain.Refused e) {
            throw new IllegalArgumentException(what + ": " + e.getMessage());
        } catch (IOException e) {
            throw new IllegalArgumentException(what + ": cannot write in " + shownParent + ": " + reason(e));
        }
        SnapshotTarget t = new SnapshotTarget(realParent.resolve(abs.getFileName()), out.toString(), staging);
        try {
            t.checkExisting();
        } catch (RuntimeException e) {
            t.close();
            throw e;
        }
        return t;
    }

    /** An existing {@code out} that is a link, a file or a device: refused, named as given. */
    private static void refuseNonFolder(Path out, String what) {
        if (Files.isSymbolicLink(out)) {
            throw new IllegalArgumentException(what + " is a symbolic link: give a new or empty folder");
        }
        if (Files.isRegularFile(out, LinkOption.NOFOLLOW_LINKS)) {
            throw new IllegalArgumentException(what + " is a file, not a folder: give a new or empty folder (a snapshot is a folder)");
        }
        if (Files.exists(out, LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(out, LinkOption.NOFOLLOW_LINKS)) {
            throw new IllegalArgumentException(what + " is not a folder (a device, pipe or socket): give a new or empty folder");
        }
    }

    /** An existing {@code out}: an empty folder of the user that writes, not a link (again: it may have changed). */
    private void checkExisting() {
        if (!Files.exists(out, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        String what = "--out " + given;
        refuseNonFolder(out, what);
        try (Stream<Path> entries = Files.list(out)) {
            if (entries.findAny().isPresent()) {
                throw new IllegalArgumentException(what + " exists and is not an empty folder");
            }
            Object owner = Files.getAttribute(out, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            Object self = Files.getAttribute(staging, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            if (!owner.equals(self)) {
                throw new IllegalArgumentException(what + " belongs to another user (uid " + owner
                        + "): give a new folder, or one of your own");
            }
        } catch (IOException e) {
            throw new IllegalArgumentException(what + ": " + reason(e));
        } catch (UnsupportedOperationException e) {
            // not a POSIX file system: no owners to compare
        }
    }

    /** The private folder to write into. */
    Path staging() {
        return staging;
    }

    /** Renames the written folder to {@code out}, readable by others as a folder made with mkdir would be. */
    void commit() {
        try {
            Files.setPosixFilePermissions(staging, PosixFilePermissions.fromString("rwxr-xr-x"));
        } catch (IOException | UnsupportedOperationException e) {
            // stays private: still a complete snapshot
        }
        try {
            Files.move(staging, out, StandardCopyOption.ATOMIC_MOVE);
            committed = true;
        } catch (IOException e) {
            // ENOTEMPTY: filled meanwhile; ENOTDIR: a link or file put there meanwhile
            throw new IllegalArgumentException("--out " + given + ": cannot move the snapshot into place: " + reason(e));
        }
    }

    /** Removes the private folder unless it was committed (links are removed, never followed). */
    @Override
    public void close() {
        if (committed) {
            return;
        }
        SnapshotWriter.deleteTree(staging);
    }

    /**
     * An I/O failure in words: "no space left on device", "permission denied", ... never a path: the
     * paths involved are the private folder's, which the user never named.
     */
    static String reason(IOException e) {
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof NoSuchFileException) {
            return "no such file or folder (the file system refuses new folders there, or a folder was removed meanwhile)";
        }
        if (e instanceof DirectoryNotEmptyException) {
            return "the folder is no longer empty";
        }
        if (e instanceof FileAlreadyExistsException || e instanceof NotDirectoryException) {
            return "something else was put there meanwhile";
        }
        if (e instanceof FileSystemException f) {
            return f.getReason() != null ? f.getReason().toLowerCase(Locale.ROOT) : "the file system refused it";
        }
        String m = e.getMessage();
        if (m == null || m.isEmpty() || m.contains(".fabricd-")) {
            return "write failed";
        }
        // "No space left on device" from a write: lower case like the reasons above
        return Character.toLowerCase(m.charAt(0)) + m.substring(1);
    }
}
