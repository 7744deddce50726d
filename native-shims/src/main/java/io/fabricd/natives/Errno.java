package io.fabricd.natives;

/**
 * The errno values fabricd meets, with their numbers on x86_64 and aarch64 Linux
 * (asm-generic/errno-base.h, errno.h). Messages name them ("ENODEV"), never the bare number, so an
 * on-call engineer can look them up.
 */
public enum Errno {
    EPERM(1), ENOENT(2), EINTR(4), EIO(5), ENXIO(6), EAGAIN(11), ENOMEM(12), EACCES(13), EBUSY(16),
    EXDEV(18), ENODEV(19), ENOTDIR(20), EISDIR(21), EINVAL(22), EMFILE(24), ENOSYS(38), ELOOP(40),
    EPROTONOSUPPORT(93), EOPNOTSUPP(95), EAFNOSUPPORT(97), ETIMEDOUT(110), ECONNREFUSED(111);

    private final int number;

    Errno(int number) {
        this.number = number;
    }

    /** The kernel's number. */
    public int number() {
        return number;
    }

    /** Whether {@code errno} (positive, as errno and LastErrorException give it) is this one. */
    public boolean is(int errno) {
        return errno == number;
    }

    /** The name of {@code errno}, "errno 42" for one not listed here. */
    public static String describe(int errno) {
        for (Errno e : values()) {
            if (e.number == errno) {
                return e.name();
            }
        }
        return "errno " + errno;
    }
}
