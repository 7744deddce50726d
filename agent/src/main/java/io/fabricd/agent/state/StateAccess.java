package io.fabricd.agent.state;

import io.fabricd.collectors.files.FolderChain;
import io.fabricd.collectors.files.UnixAttributes;
import io.fabricd.natives.ProcessIdentity;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Who may see and change the state folder: the agent's user alone. What is made there is private
 * (folder 0700, files 0600, whatever the umask), so no other user can read the inventory or open
 * {@code .lock} to lock it; a folder or file of this user's that is open to others (an agent
 * before this rule, the Helm chart's hostPath, {@code fabricd run} as root under umask 022) is
 * made private at start. An inventory another user could have written is not trusted.
 */
final class StateAccess {
    static final FileAttribute<Set<PosixFilePermission>> FOLDER = PosixFilePermissions.asFileAttribute(
            PosixFilePermissions.fromString("rwx------"));
    static final FileAttribute<Set<PosixFilePermission>> FILE = PosixFilePermissions.asFileAttribute(
            PosixFilePermissions.fromString("rw-------"));
    private static final int TYPE = 0170000;
    private static final int REGULAR = 0100000;
    private static final int DIRECTORY = 0040000;
    private static final int OTHERS = 077;
    private static final int OTHERS_WRITE = 022;

    private StateAccess() {
    }

    /** An inventory file another user could have written: refused as the expected inventory. */
    static final class Untrusted extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        Untrusted(String message) {
            super(message);
        }
    }

    /**
     * Refuses the inventory file {@code f} unless root, this process's user or {@code alsoUid} (the
     * state folder's owner for a command run as root on the agent's behalf; -1: nobody else) owns it
     * and neither a group nor everybody can write it: whoever else could have written it could make
     * the agent expect hardware that never was there, or forget what is gone.
     */
    static void trust(Path f, long alsoUid) throws IOException {
        UnixAttributes a = UnixAttributes.of(f);
        if (a == null) {
            return; // not a POSIX file system: no owners to check
        }
        int mode = a.mode();
        long self = ProcessIdentity.current().uid();
        String refused = ": refused as the expected inventory, as ";
        if (a.uid() != 0 && a.uid() != self && a.uid() != alsoUid) {
            throw new Untrusted(f + " belongs to " + a.user() + ", neither root nor the agent's user"
                    + refused + "that user could have written anything in it");
        }
        if ((mode & OTHERS_WRITE) != 0) {
            String by = (mode & 02) != 0 ? "everybody" : a.groupInWords();
            throw new Untrusted(f + " can be written by " + by + " (mode " + octal(mode) + ")" + refused
                    + "others could have written anything in it");
        }
    }

    /**
     * Makes the folder {@code dir}, when this user's, and this user's files in it private: the
     * folder 0700, files 0600. A file others may write is left as it is (its content cannot be
     * trusted: {@link #trust} refuses it, and making it private would hide that), and so is a
     * folder others may write (a shared sticky folder is not this process's to close). What was
     * changed, in words ("folder 0755 to 0700; 0644 to 0600: .lock, inventory.json"); empty when
     * nothing.
     */
    static String makePrivate(Path dir) throws IOException {
        long self = ProcessIdentity.current().uid();
        UnixAttributes d = UnixAttributes.of(dir);
        if (d == null) {
            return "";
        }
        int mode = d.mode();
        if (d.uid() != self || (mode & TYPE) != DIRECTORY || (mode & OTHERS_WRITE) != 0) {
            return "";
        }
        List<String> said = new ArrayList<>();
        if ((mode & OTHERS) != 0) {
            Files.setAttribute(dir, "unix:mode", mode & ~OTHERS & 07777, LinkOption.NOFOLLOW_LINKS);
            said.add("folder " + octal(mode) + " to " + octal(mode & ~OTHERS));
        }
        List<String> files = new ArrayList<>();
        String was = null;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path p : entries) {
                UnixAttributes a = UnixAttributes.of(p);
                int m = a.mode();
                if (a.uid() == self && (m & TYPE) == REGULAR && (m & OTHERS) != 0 && (m & OTHERS_WRITE) == 0) {
                    Files.setAttribute(p, "unix:mode", m & ~OTHERS & 07777, LinkOption.NOFOLLOW_LINKS);
                    files.add(p.getFileName().toString());
                    was = was == null || was.equals(octal(m)) ? octal(m) : "";
                }
            }
        }
        if (!files.isEmpty()) {
            files.sort(null);
            said.add((was.isEmpty() ? "files" : was) + " to 0600: " + String.join(", ", files));
        }
        return String.join("; ", said);
    }

    /**
     * Makes the folder {@code dir} (0700, the folders above it as the umask says) when it is missing;
     * one made meanwhile by another process is taken, to be checked as any other. A file or a link
     * in its place is left for the caller's checks to refuse.
     */
    static void createFolder(Path dir) throws IOException {
        if (Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS) || Files.isSymbolicLink(dir)) {
            return;
        }
        FolderChain.checkNearest(dir);
        Path parent = dir.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        try {
            Files.createDirectory(dir, FOLDER);
        } catch (FileAlreadyExistsException e) {
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS) && !Files.isSymbolicLink(dir)) {
                throw e;
            }
        }
    }

    /** Gives {@code p} (not a link it may have been replaced by) to {@code owner}; nothing for null. */
    static void give(Path p, FolderChain.Owner owner) throws IOException {
        if (owner != null) {
            Files.setAttribute(p, "unix:gid", owner.gid(), LinkOption.NOFOLLOW_LINKS);
            Files.setAttribute(p, "unix:uid", owner.uid(), LinkOption.NOFOLLOW_LINKS);
        }
    }

    static String octal(int mode) {
        return String.format(Locale.ROOT, "%04o", mode & 07777);
    }
}
