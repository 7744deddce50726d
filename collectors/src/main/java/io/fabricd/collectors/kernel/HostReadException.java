package io.fabricd.collectors.kernel;

import java.io.IOException;

/** A read of one host path failed; {@link #errno()} names why (ENOENT, EINVAL, ETIMEDOUT, ...). */
public final class HostReadException extends IOException {
    private static final long serialVersionUID = 1L;
    private final String path;
    private final String errno;

    public HostReadException(String path, String errno) {
        this(path, errno, null);
    }

    public HostReadException(String path, String errno, String detail) {
        super(path + ": " + errno + (detail == null || detail.isEmpty() ? "" : " (" + detail + ")"));
        this.path = path;
        this.errno = errno;
    }

    /** Failures are expected and frequent (sysfs EINVAL on empty GID slots): skip the stack walk. */
    @Override
    public synchronized Throwable fillInStackTrace() {
        return this;
    }

    public String path() {
        return path;
    }

    public String errno() {
        return errno;
    }

    /** True when the path does not exist (as opposed to existing but failing to read). */
    public boolean isMissing() {
        return "ENOENT".equals(errno);
    }
}
