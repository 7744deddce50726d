package io.fabricd.collectors.files;

import io.fabricd.natives.ProcessIdentity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The rule for every file fabricd writes: the folder it is written in, and every folder above it up
 * to {@code /}, can be changed only by root and by the user fabricd runs as. A folder owned by
 * another user, or one that a group or everybody can write without the sticky bit, lets someone else
 * rename what fabricd made there and put a link in its place between two writes; fabricd refuses it
 * instead of writing through it. A sticky folder ({@code /tmp}) passes: there only the owner of an
 * entry can rename it, and the next folder down must be root's or ours like every other. One
 * exception, asked for by name ({@link #checkForOwner}): root may write into a service user's own
 * folder (the agent's state folder), for that user.
 *
 * <p>The check walks the path as given, name by name: every folder reached is checked, and a link
 * on the way is followed only when it sits in a folder that passes and, in a sticky folder, is
 * root's or ours (so a link another user planted is refused, not followed). Callers write through
 * the real path returned; nobody else can change a folder of the checked chain afterwards (only
 * its owner, root or us, can chmod, chown or rename in it).
 */
public final class FolderChain {
    private static final int STICKY = 01000;
    private static final int GROUP_WRITE = 020;
    private static final int OTHER_WRITE = 02;
    private static final String WHAT_TO_DO = ": choose a folder only you and root can change";

    private FolderChain() {
    }

    /** A folder on the way that another user can change: the one line says which, whose, and what to do. */
    public static final class Refused extends IOException {
        private static final long serialVersionUID = 1L;

        Refused(String message) {
            super(message);
        }
    }

    /**
     * Checks {@code folder} (which must exist) and every folder above it; its real path, to write
     * through. {@link Refused} when another user can change one of them, naming the first from the
     * top; other IOExceptions when the folder cannot be looked at (missing, permissions).
     */
    public static Path check(Path folder) throws IOException {
        Walk w = walk(folder, false);
        if (!w.rest().isEmpty()) {
            throw new NoSuchFileException(folder.toString());
        }
        return w.real();
    }

    /**
     * Checks the nearest folder of {@code folder}, or above it, that exists (the one new folders
     * will be made in); its real path. For a folder to be made: check again once it is.
     */
    public static Path checkNearest(Path folder) throws IOException {
        return walk(folder, false).real();
    }

    /** The user and group a folder belongs to, when root writes into it on that user's behalf. */
    public record Owner(int uid, int gid) {
    }

    /**
     * {@link #check}, except that for root the folder itself (never one above it) may belong to
     * another user: a service's own folder (the agent's state folder under systemd's
     * {@code User=fabricd}), which a command run as root writes into for that user. Its owner must
     * then be the only one who can change it: no group or other write bit, sticky or not. And as
     * what root writes there is given to that user (so that the service can read it), the kernel
     * must keep the owner from making root hand it a file it may not write: hard links to such
     * files refused ({@code fs.protected_hardlinks = 1}, the default of systemd and of most
     * distributions). Returns the folder's owner when it is another user than this process's, else
     * null.
     */
    public static Owner checkForOwner(Path folder) throws IOException {
        Walk w = walk(folder, true);
        if (!w.rest().isEmpty()) {
            throw new NoSuchFileException(folder.toString());
        }
        UnixAttributes a = UnixAttributes.of(w.real());
        return a == null || a.uid() == 0 || a.uid() == ProcessIdentity.current().uid() ? null : new Owner(a.uid(), a.gid());
    }

    /** The real path reached, and the names below it that do not exist. */
    private record Walk(Path real, List<String> rest) {
    }

    /** Links followed on one walk at most, as the kernel's ELOOP limit. */
    private static final int MAX_LINKS = 40;

    /**
     * Walks the path as given, from {@code /}, one name at a time, checking each folder reached and
     * each link met: a link counts only when the folder holding it passes (only root and we can
     * make links there) and, in a sticky folder anyone may write (/tmp), when root or we own the
     * link itself; the kernel's protected_symlinks rule, so a link another user planted on the way
     * is refused rather than followed. {@code ..} goes up from where the walk really is, as the
     * kernel does after a link. {@code ownersLeaf}: the last folder is checked as {@link
     * #checkForOwner} says.
     */
    private static Walk walk(Path folder, boolean ownersLeaf) throws IOException {
        long self = ProcessIdentity.current().uid();
        ArrayDeque<String> names = new ArrayDeque<>();
        push(names, folder.toAbsolutePath());
        Path cur = folder.toAbsolutePath().getRoot();
        checkOne(cur, UnixAttributes.of(cur), self);
        int links = 0;
        while (!names.isEmpty()) {
            String name = names.pop();
            if (name.isEmpty() || name.equals(".")) {
                continue;
            }
            if (name.equals("..")) {
                cur = cur.getParent() == null ? cur : cur.getParent();
                continue;
            }
            Path next = cur.resolve(name);
            UnixAttributes a;
            try {
                a = UnixAttributes.of(next);
            } catch (NoSuchFileException e) {
                List<String> rest = new ArrayList<>();
                rest.add(name);
                rest.addAll(names);
                return new Walk(cur, rest);
            }
            if (a == null) {
                return new Walk(folder.toRealPath(), List.of()); // not a POSIX file system: no owners to check
            }
            if (a.isLink()) {
                UnixAttributes holder = UnixAttributes.of(cur);
                if (a.uid() != 0 && a.uid() != self && holder != null && (holder.mode() & STICKY) != 0) {
                    throw new Refused("the link " + next + " belongs to " + "uid " + a.uid()
                            + ", who can point it anywhere" + WHAT_TO_DO);
                }
                if (++links > MAX_LINKS) {
                    throw new IOException(folder + ": too many levels of symbolic links");
                }
                Path target = Files.readSymbolicLink(next);
                push(names, target);
                if (target.isAbsolute()) {
                    cur = target.getRoot();
                }
                continue;
            }
            if (ownersLeaf && names.isEmpty()) {
                checkOwners(next, a, self);
            } else {
                checkOne(next, a, self);
            }
            cur = next;
        }
        return new Walk(cur, List.of());
    }

    /** Puts the names of {@code p} in front of those still to walk. */
    private static void push(ArrayDeque<String> names, Path p) {
        for (int i = p.getNameCount() - 1; i >= 0; i--) {
            names.push(p.getName(i).toString());
        }
    }

    private static void checkOne(Path p, UnixAttributes a, long self) throws Refused {
        if (a == null) {
            return; // not a POSIX file system: no owners to check
        }
        int mode = a.mode();
        if (a.isLink()) {
            // a real path with a link in it: changed since it was resolved
            throw new Refused("the folder " + p + " was replaced by a symbolic link meanwhile" + WHAT_TO_DO);
        }
        if (a.uid() != 0 && a.uid() != self) {
            throw new Refused("the folder " + p + " belongs to " + a.user()
                    + ", who can rename or replace what is in it" + WHAT_TO_DO);
        }
        if ((mode & STICKY) == 0 && (mode & (GROUP_WRITE | OTHER_WRITE)) != 0) {
            String by = (mode & OTHER_WRITE) != 0 ? "everybody" : a.groupInWords();
            throw new Refused("the folder " + p + " can be written by " + by
                    + " without the sticky bit, so others can rename or replace what is in it" + WHAT_TO_DO);
        }
    }

    /** The last folder of {@link #checkForOwner}: root may write into another user's folder that user alone can change. */
    private static void checkOwners(Path p, UnixAttributes a, long self) throws IOException {
        if (self != 0 || a.uid() == 0 || a.isLink()) {
            checkOne(p, a, self);
            return;
        }
        String owner = a.user();
        int mode = a.mode();
        if ((mode & (GROUP_WRITE | OTHER_WRITE)) != 0) {
            String by = (mode & OTHER_WRITE) != 0 ? "everybody" : a.groupInWords();
            throw new Refused("the folder " + p + " belongs to " + owner + " and can be written by " + by
                    + " too: root writes into another user's folder only when that user alone can change it: chmod go-w " + p);
        }
        if (!hardLinksProtected()) {
            throw new Refused("the folder " + p + " belongs to " + owner + ", and this host lets a user hard-link files it may not "
                    + "write (fs.protected_hardlinks is not 1), so that user could have root give it any file: sysctl "
                    + "fs.protected_hardlinks=1, or run the command as " + owner);
        }
    }

    private static boolean hardLinksProtected() {
        try {
            return Files.readString(Path.of("/proc/sys/fs/protected_hardlinks")).strip().equals("1");
        } catch (IOException e) {
            return false;
        }
    }
}
