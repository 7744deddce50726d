package io.fabricd.probes;

import com.sun.security.auth.module.UnixSystem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Who this process reads files as: its effective user id and every group it is in (the effective
 * group and the supplementary ones), from {@code /proc/self/status} (Linux; else the JDK's Unix login
 * module, whose user id is the real one).
 */
record ProcessIds(long uid, Set<Long> groups) {
    ProcessIds {
        groups = Set.copyOf(groups);
    }

    static ProcessIds current() {
        try {
            return parse(Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException e) {
            UnixSystem u = new UnixSystem();
            Set<Long> g = new LinkedHashSet<>();
            g.add(u.getGid());
            for (long x : u.getGroups()) {
                g.add(x);
            }
            return new ProcessIds(u.getUid(), g);
        }
    }

    /** The Uid:, Gid: and Groups: lines of a /proc/PID/status. */
    static ProcessIds parse(Iterable<String> status) {
        Long uid = null;
        Set<Long> g = new LinkedHashSet<>();
        boolean gid = false;
        for (String line : status) {
            String[] f = line.strip().split("\\s+");
            if (f[0].equals("Uid:") && f.length >= 3) {
                uid = Long.parseLong(f[2]);
            } else if (f[0].equals("Gid:") && f.length >= 3) {
                g.add(Long.parseLong(f[2]));
                gid = true;
            } else if (f[0].equals("Groups:")) {
                for (int i = 1; i < f.length; i++) {
                    g.add(Long.parseLong(f[i]));
                }
            }
        }
        if (uid == null || !gid) {
            throw new IllegalArgumentException("no Uid: or Gid: line");
        }
        return new ProcessIds(uid, g);
    }
}
