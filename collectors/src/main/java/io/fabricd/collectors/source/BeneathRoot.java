package io.fabricd.collectors.source;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import io.fabricd.collectors.kernel.HostReadException;
import io.fabricd.natives.Errno;
import io.fabricd.natives.LibC;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;

/**
 * Opens files of a snapshot folder so that the kernel keeps the open inside it: openat2(2) on a
 * descriptor of the folder with {@code RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS} and
 * {@code O_NONBLOCK}. The caller resolves a path first (links followed inside the folder) and opens
 * its real path, so a link met now — the file, or a folder above it, swapped for a link since — fails
 * with ELOOP ({@link LinkMet}) instead of being followed, and a pipe swapped in is opened without
 * waiting for a writer and refused (statx on the descriptor: not a regular file). Nothing lies
 * between the check and the open. Linux 5.6 and later; where openat2 is missing or filtered,
 * {@link #open} gives null and the caller reads as before.
 */
final class BeneathRoot implements AutoCloseable {
    private static final long SYS_OPENAT2 = 437; // the same number on every Linux architecture
    private static final int O_NONBLOCK = 04000;
    private static final int O_CLOEXEC = 02000000;
    private static final int O_PATH = 010000000;
    private static final long RESOLVE_NO_SYMLINKS = 0x04;
    private static final long RESOLVE_BENEATH = 0x08;
    private static final int AT_EMPTY_PATH = 0x1000;
    private static final int STATX_TYPE = 0x1;
    private static final int S_IFMT = 0170000;
    private static final int S_IFREG = 0100000;
    private static final int S_IFDIR = 0040000;

    /** A link was met where the resolved path had none: something was swapped since it was resolved. */
    static final class LinkMet extends IOException {
        LinkMet(String path) {
            super(path + ": changed into a link since it was resolved");
        }
    }

    private final LibC libc;
    private final Path root;
    private volatile int dirfd;
    private volatile Object rootKey;

    private BeneathRoot(LibC libc, Path root, int dirfd, Object rootKey) {
        this.libc = libc;
        this.root = root;
        this.dirfd = dirfd;
        this.rootKey = rootKey;
    }

    /** A handle on {@code root}, or null where openat2 cannot be used here. */
    static BeneathRoot open(LibC libc, Path root) {
        if (libc.filesUnavailable() != null) {
            return null;
        }
        int fd = -1;
        try {
            Object key = Files.readAttributes(root, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
            fd = libc.open(root.toString(), O_PATH | O_CLOEXEC);
            BeneathRoot b = new BeneathRoot(libc, root, fd, key);
            // openat2 at all: ENOSYS before Linux 5.6, EPERM/ENOSYS under a seccomp filter that lacks it
            int probe = b.openat2(".", O_PATH | O_CLOEXEC);
            libc.close(probe);
            return b;
        } catch (LastErrorException | IOException | UnsatisfiedLinkError e) {
            if (fd >= 0) {
                libc.close(fd);
            }
            return null;
        }
    }

    /**
     * The folder was deleted and made again (or replaced) under the same name: take the new one, so
     * it is read again. Called when a read found nothing; one stat.
     */
    void followRoot() {
        try {
            Object key = Files.readAttributes(root, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
            if (Objects.equals(key, rootKey)) {
                return;
            }
            int fd = libc.open(root.toString(), O_PATH | O_CLOEXEC);
            int old = dirfd;
            dirfd = fd;
            rootKey = key;
            libc.close(old);
        } catch (IOException | LastErrorException e) {
            // gone for now: reads fail with ENOENT until it is back
        }
    }

    /** struct open_how for reading a file: built once, every read passes the same bytes. */
    private static final byte[] HOW_READ = how(O_NONBLOCK | O_CLOEXEC);

    private static byte[] how(int flags) {
        ByteBuffer how = ByteBuffer.allocate(24).order(ByteOrder.nativeOrder());
        how.putLong(flags).putLong(0).putLong(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS);
        return how.array();
    }

    private int openat2(String rel, int flags) {
        return openat2(rel, how(flags));
    }

    private int openat2(String rel, byte[] how) {
        return (int) libc.syscall(SYS_OPENAT2, dirfd, rel, how, 24);
    }

    private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.nativeOrder());

    /**
     * The whole text of the regular file at {@code rel} (a real path under the root, no links), as
     * {@link SmallFiles} reads it. {@link LinkMet} where a link is met; a {@link HostReadException}
     * with the errno otherwise.
     */
    String read(String rel, String hostPath, int max, Charset cs) throws IOException {
        int fd;
        try {
            fd = openat2(rel.isEmpty() ? "." : rel, HOW_READ);
        } catch (LastErrorException e) {
            if (Errno.ELOOP.is(e.getErrorCode())) {
                throw new LinkMet(hostPath);
            }
            if (Errno.ENOENT.is(e.getErrorCode())) {
                throw new FileNotFoundException(hostPath);
            }
            throw new HostReadException(hostPath, Errno.describe(e.getErrorCode()));
        }
        try (Memory mem = new Memory(SmallFiles.CHUNK)) {
            byte[] stx = new byte[256];
            libc.statx(fd, "", AT_EMPTY_PATH, STATX_TYPE, stx);
            int mode = (short) SHORT.get(stx, 28) & 0xffff; // stx_mode
            if ((mode & S_IFMT) == S_IFDIR) {
                throw new HostReadException(hostPath, "EISDIR");
            }
            if ((mode & S_IFMT) != S_IFREG) {
                throw new HostReadException(hostPath, "EINVAL", "not a regular file");
            }
            return SmallFiles.read((b, off, len) -> {
                long n = libc.read(fd, mem, Math.min(len, SmallFiles.CHUNK));
                if (n <= 0) {
                    return -1;
                }
                mem.read(0, b, off, (int) n);
                return (int) n;
            }, hostPath, max, SmallFiles.ANY_SHORT_READ, cs);
        } catch (LastErrorException e) {
            throw new HostReadException(hostPath, Errno.describe(e.getErrorCode()));
        } finally {
            libc.close(fd);
        }
    }

    @Override
    public void close() {
        libc.close(dirfd);
    }
}
