package io.fabricd.probes;

import io.fabricd.natives.ProcessIdentity;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Locale;
import java.util.Set;

/**
 * A probe key file and its one rule (docs/security.md, "The probe key file"): owned by root or by the
 * user reading it; mode 0640 or stricter (its owner may write it, nobody else; others read nothing);
 * and when its group may read it, that group is {@code fabricd} or one the reading process is in. A
 * file that breaks it is refused, saying which part: anyone who can read or change the key can forge
 * probes and signed requests. Missing and permission denied are told apart, each with what to do.
 */
final class ProbeKeyFile {
    /** The file as the rule makes it, and the commands that do, as said in every message. */
    static final String RULE = "owner root, group fabricd, mode 0640 (chown root:fabricd FILE; chmod 0640 FILE)";
    /** The one group every reader may share the key through, whatever groups the reading process is in. */
    static final String GROUP = "fabricd";
    /** Largest key file read: a key is a line of text, not a file to stream. */
    private static final long MAX_BYTES = 4096;
    private static final Set<PosixFilePermission> TOO_OPEN = Set.of(PosixFilePermission.GROUP_WRITE,
            PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE,
            PosixFilePermission.OTHERS_EXECUTE);

    private ProbeKeyFile() {
    }

    /**
     * The key text of {@code file} for a process of user and groups {@code reader}, surrounding
     * whitespace stripped; IllegalArgumentException with one line otherwise.
     */
    static String read(Path file, ProcessIdentity reader) {
        String what = "probe key file " + file;
        PosixFileAttributes a;
        try {
            a = Files.readAttributes(file, PosixFileAttributes.class);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException(what + " does not exist");
        } catch (AccessDeniedException e) {
            throw new IllegalArgumentException(denied(what, file, null));
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + what + ": " + e.getMessage());
        }
        if (a.isDirectory()) {
            throw new IllegalArgumentException(what + " is a folder, not a file");
        }
        if (!a.isRegularFile()) {
            throw new IllegalArgumentException(what + " is not a regular file (a pipe or device cannot be read at start)");
        }
        if (a.size() > MAX_BYTES) {
            throw new IllegalArgumentException(what + " is larger than " + MAX_BYTES + " bytes: not a key");
        }
        String open = tooOpen(a.permissions());
        if (open != null) {
            throw new IllegalArgumentException(what + " has mode " + octal(a.permissions()) + ": " + open
                    + ", and anyone who reads the key can forge probes and signed requests; make it " + RULE.replace("FILE", file.toString()));
        }
        String owner = wrongOwnerOrGroup(file, a, reader);
        if (owner != null) {
            throw new IllegalArgumentException(what + " " + owner + ", and anyone who can read or change the key can forge probes and "
                    + "signed requests; make it " + RULE.replace("FILE", file.toString()));
        }
        String s;
        try {
            s = Files.readString(file, StandardCharsets.UTF_8).strip();
        } catch (AccessDeniedException e) {
            throw new IllegalArgumentException(denied(what, file, a));
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + what + ": " + e.getMessage());
        }
        if (s.isEmpty()) {
            throw new IllegalArgumentException(what + " is empty");
        }
        return s;
    }

    /** What the mode allows beyond the rule, in words; null when it keeps to it. */
    static String tooOpen(Set<PosixFilePermission> p) {
        if (p.contains(PosixFilePermission.OTHERS_READ)) {
            return "every user can read it";
        }
        if (p.contains(PosixFilePermission.OTHERS_WRITE) || p.contains(PosixFilePermission.GROUP_WRITE)) {
            return "users other than its owner can change it";
        }
        return p.stream().anyMatch(TOO_OPEN::contains) ? "it is executable by others than its owner" : null;
    }

    /**
     * What the file's owner or group allows beyond the rule, in words; null when they keep to it: its
     * owner root or the reader, and a group that may read it {@value #GROUP} or one of the reader's.
     */
    static String wrongOwnerOrGroup(Path file, PosixFileAttributes a, ProcessIdentity reader) {
        long uid;
        long gid;
        try {
            uid = ((Number) Files.getAttribute(file, "unix:uid")).longValue();
            gid = ((Number) Files.getAttribute(file, "unix:gid")).longValue();
        } catch (IOException | UnsupportedOperationException e) {
            return null; // no numeric ids to hold it to: the mode alone
        }
        String self = "the user reading it (" + reader(System.getProperty("user.name"), reader.uid()) + ")";
        if (uid != 0 && uid != reader.uid()) {
            return "belongs to " + who(a.owner().getName(), "user", "uid", uid) + ", not to root or to " + self
                    + ": that user can change the key and its mode";
        }
        if (a.permissions().contains(PosixFilePermission.GROUP_READ) && !reader.groups().contains(gid)
                && !GROUP.equals(a.group().getName())) {
            return "can be read by " + who(a.group().getName(), "group", "gid", gid) + ", which is neither " + GROUP
                    + " nor a group of " + self + ": every member of it can read the key";
        }
        return null;
    }

    /** "user bob (uid 1000)", or "uid 1000" where the name is only the number. */
    private static String who(String name, String kind, String id, long number) {
        return name == null || name.isEmpty() || name.equals(Long.toString(number)) ? id + " " + number
                : kind + " " + name + " (" + id + " " + number + ")";
    }

    /** "root, uid 0", or "uid 1000" where the name is not known. */
    private static String reader(String name, long uid) {
        return name == null || name.isEmpty() || "?".equals(name) ? "uid " + uid : name + ", uid " + uid;
    }

    /**
     * Permission denied on a folder above the file ({@code seen} null: the file could not even be
     * looked at, which most tools call missing) or on the file itself (its owner and mode say why).
     */
    private static String denied(String what, Path file, PosixFileAttributes seen) {
        String user = System.getProperty("user.name");
        String why;
        if (seen == null) {
            Path closed = null;
            for (Path d = file.toAbsolutePath().getParent(); d != null; d = d.getParent()) {
                if (!Files.isExecutable(d)) {
                    closed = d;
                }
            }
            why = closed != null ? " (the folder " + closed + " is closed to that user)" : "";
        } else {
            why = " (the file is " + seen.owner().getName() + ":" + seen.group().getName() + " " + octal(seen.permissions()) + ")";
        }
        return "cannot read " + what + " as user " + user + ": permission denied" + why
                + "; the rule: " + RULE.replace("FILE", file.toString()) + ", and every user that reads it in group " + GROUP
                + " (adduser " + user + " " + GROUP + ")";
    }

    static String octal(Set<PosixFilePermission> p) {
        int m = 0;
        for (PosixFilePermission x : p) {
            m |= 1 << (8 - x.ordinal());
        }
        return String.format(Locale.ROOT, "0%03o", m);
    }
}
