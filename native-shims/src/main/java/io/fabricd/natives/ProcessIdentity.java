package io.fabricd.natives;

import com.sun.security.auth.module.UnixSystem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Who this process reads and writes files as, from {@code /proc/self/status} (Linux): the effective
 * user id (owner of the files it makes), the file-system user id (whose files it may open), every
 * group it is in (the effective group and the supplementary ones) and its effective capabilities.
 * Off Linux, the JDK's Unix login module (the real ids, capabilities unknown).
 *
 * @param capabilities the CapEff bit mask; null when unknown
 */
public record ProcessIdentity(long uid, long fsUid, Set<Long> groups, Long capabilities) {
    /** Capability bits (linux/capability.h) that decide access to other users' files. */
    public static final int CAP_DAC_OVERRIDE = 1;
    public static final int CAP_DAC_READ_SEARCH = 2;

    public ProcessIdentity {
        groups = Set.copyOf(groups);
    }

    /** This process's identity. */
    public static ProcessIdentity current() {
        try {
            return parse(Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException e) {
            UnixSystem u = new UnixSystem();
            Set<Long> g = new LinkedHashSet<>();
            g.add(u.getGid());
            for (long x : u.getGroups()) {
                g.add(x);
            }
            return new ProcessIdentity(u.getUid(), u.getUid(), g, null);
        }
    }

    /** The Uid:, Gid:, Groups: and CapEff: lines of a /proc/PID/status; IllegalArgumentException without Uid: or Gid:. */
    public static ProcessIdentity parse(Iterable<String> status) {
        long[] uid = null;
        Set<Long> g = new LinkedHashSet<>();
        boolean gid = false;
        Long caps = null;
        for (String line : status) {
            String[] f = line.strip().split("\\s+");
            if (f[0].equals("Uid:") && f.length >= 5) {
                uid = new long[] {Long.parseLong(f[2]), Long.parseLong(f[4])};
            } else if (f[0].equals("Gid:") && f.length >= 3) {
                g.add(Long.parseLong(f[2]));
                gid = true;
            } else if (f[0].equals("Groups:")) {
                for (int i = 1; i < f.length; i++) {
                    g.add(Long.parseLong(f[i]));
                }
            } else if (f[0].equals("CapEff:") && f.length >= 2) {
                caps = Long.parseUnsignedLong(f[1], 16);
            }
        }
        if (uid == null || !gid) {
            throw new IllegalArgumentException("no Uid: or Gid: line");
        }
        return new ProcessIdentity(uid[0], uid[1], g, caps);
    }

    /** Whether it holds capability {@code bit}; false when its capabilities are unknown. */
    public boolean has(int bit) {
        return capabilities != null && (capabilities >>> bit & 1) == 1;
    }
}
