package io.fabricd.probes;

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
 * A probe key file and its one rule (docs/security.md, "The probe key file"): owner root (or the
 * user that runs fabricd), group fabricd, mode 0640 or stricter — the owner may write it, its group
 * read it, nobody else anything. Every user that reads it (the agent's, a Slurm controller's) is the
 * owner or in the group. A file others may read or change, or its group change, is refused: anyone
 * who reads the key can forge probes and signed requests. Missing and permission denied are told
 * apart, each with what to do.
 */
final class ProbeKeyFile {
    /** The mode the rule asks for, as said in every message. */
    static final String RULE = "owner root, group fabricd, mode 0640 (chown root:fabricd FILE; chmod 0640 FILE)";
    /** Largest key file read: a key is a line of text, not a file to stream. */
    private static final long MAX_BYTES = 4096;
    private static final Set<PosixFilePermission> TOO_OPEN = Set.of(PosixFilePermission.GROUP_WRITE,
            PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE,
            PosixFilePermission.OTHERS_EXECUTE);

    private ProbeKeyFile() {
    }

    /** The key text of {@code file}, surrounding whitespace stripped; IllegalArgumentException with one line otherwise. */
    static String read(Path file) {
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
                + "; the rule: " + RULE.replace("FILE", file.toString()) + ", and every user that reads it in group fabricd"
                + " (adduser " + user + " fabricd)";
    }

    static String octal(Set<PosixFilePermission> p) {
        int m = 0;
        for (PosixFilePermission x : p) {
            m |= 1 << (8 - x.ordinal());
        }
        return String.format(Locale.ROOT, "0%03o", m);
    }
}
