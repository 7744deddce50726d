package io.fabricd.collectors.kernel.live;

import java.util.Map;

/** errno numbers of x86_64/aarch64 Linux (asm-generic/errno*.h) to names. */
final class Errno {
    static final int ENODEV = 19;
    static final int EINVAL = 22;
    static final int EOPNOTSUPP = 95;
    static final int EPERM = 1;
    static final int EAGAIN = 11;

    private static final Map<Integer, String> NAMES = Map.ofEntries(
            Map.entry(1, "EPERM"), Map.entry(2, "ENOENT"), Map.entry(5, "EIO"), Map.entry(6, "ENXIO"),
            Map.entry(11, "EAGAIN"), Map.entry(12, "ENOMEM"), Map.entry(13, "EACCES"), Map.entry(16, "EBUSY"),
            Map.entry(19, "ENODEV"), Map.entry(22, "EINVAL"), Map.entry(38, "ENOSYS"), Map.entry(93, "EPROTONOSUPPORT"),
            Map.entry(95, "EOPNOTSUPP"), Map.entry(97, "EAFNOSUPPORT"), Map.entry(110, "ETIMEDOUT"));

    static String name(int errno) {
        return NAMES.getOrDefault(errno, "errno " + errno);
    }

    private Errno() {
    }
}
