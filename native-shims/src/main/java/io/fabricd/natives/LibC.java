package io.fabricd.natives;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.NativeLong;
import com.sun.jna.Platform;
import com.sun.jna.Pointer;

/**
 * The one Java binding of libc: sockets, ioctl and netlink for the collection's kernel queries,
 * timestamped UDP for the probes, openat2/statx/read for reading snapshot folders. JNA's direct
 * mapping: a call costs about what a JNI call does, where an interface mapping goes through a
 * reflective proxy (several times that, on every probe and every file read). Failures throw
 * {@link LastErrorException}; name its code with {@link Errno#describe}.
 *
 * <p>The socket calls and the file calls are registered apart, so that a libc without statx (glibc
 * before 2.28) costs only the openat2 reads. {@link #load} never throws: what could not be
 * registered says why in {@link #unavailable()} or {@link #filesUnavailable()}, and a call to it
 * throws {@link UnsatisfiedLinkError}.
 */
public final class LibC {
    public static final int AF_INET = 2;
    public static final int AF_INET6 = 10;
    public static final int AF_NETLINK = 16;
    public static final int SOCK_DGRAM = 2;
    public static final int SOCK_RAW = 3;
    public static final int SOCK_CLOEXEC = 0x80000;
    public static final int SOL_SOCKET = 1;
    public static final int SO_RCVBUF = 8;
    public static final int SO_RCVTIMEO = 20;
    public static final int MSG_DONTWAIT = 0x40;

    private static final LibC INSTANCE = new LibC(Sockets.UNAVAILABLE, Files.UNAVAILABLE);

    private final String unavailable;
    private final String filesUnavailable;

    private LibC(String unavailable, String filesUnavailable) {
        this.unavailable = unavailable;
        this.filesUnavailable = filesUnavailable;
    }

    /** libc of this process (registered once, when first asked for). */
    public static LibC load() {
        return INSTANCE;
    }

    /** Why the socket calls cannot be made, or null when they can. */
    public String unavailable() {
        return unavailable;
    }

    /** Why the file calls (openat2, open, read, statx) cannot be made, or null when they can. */
    public String filesUnavailable() {
        return filesUnavailable;
    }

    private static String register(Class<?> c, boolean longSizeT) {
        try {
            if (longSizeT && Native.LONG_SIZE != 8) {
                return "a 32-bit JVM: read(2) is bound with a 64-bit size_t";
            }
            Native.register(c, Platform.C_LIBRARY_NAME);
            return null;
        } catch (Throwable e) { // UnsatisfiedLinkError, or JNA's own native part missing
            return "libc through JNA: " + e;
        }
    }

    private static final class Sockets {
        static final String UNAVAILABLE = register(Sockets.class, false);

        private Sockets() {
        }

        static native int socket(int domain, int type, int protocol) throws LastErrorException;

        static native int ioctl(int fd, NativeLong request, Pointer arg) throws LastErrorException;

        static native int setsockopt(int fd, int level, int name, Pointer value, int len) throws LastErrorException;

        static native int connect(int fd, byte[] addr, int len) throws LastErrorException;

        static native NativeLong send(int fd, byte[] buf, NativeLong len, int flags) throws LastErrorException;

        static native NativeLong sendto(int fd, Pointer buf, NativeLong len, int flags, Pointer addr, int addrlen) throws LastErrorException;

        static native NativeLong recv(int fd, Pointer buf, NativeLong len, int flags) throws LastErrorException;

        static native NativeLong recvmsg(int fd, Pointer msg, int flags) throws LastErrorException;

        static native int poll(Pointer fds, NativeLong nfds, int timeoutMs) throws LastErrorException;

        static native int close(int fd);
    }

    private static final class Files {
        static final String UNAVAILABLE = register(Files.class, true);

        private Files() {
        }

        static native long syscall(long number, int dirfd, String path, byte[] how, long size) throws LastErrorException;

        static native int open(String path, int flags) throws LastErrorException;

        static native long read(int fd, Pointer buf, long count) throws LastErrorException;

        static native int statx(int dirfd, String path, int flags, int mask, byte[] buf) throws LastErrorException;

        static native int close(int fd);
    }

    public int socket(int domain, int type, int protocol) throws LastErrorException {
        return Sockets.socket(domain, type, protocol);
    }

    public int ioctl(int fd, long request, Pointer arg) throws LastErrorException {
        return Sockets.ioctl(fd, new NativeLong(request), arg);
    }

    public void setsockopt(int fd, int level, int name, Pointer value, int len) throws LastErrorException {
        Sockets.setsockopt(fd, level, name, value, len);
    }

    /** setsockopt with an int option value. */
    public void setsockopt(int fd, int level, int name, int value) throws LastErrorException {
        try (Memory m = new Memory(4)) {
            m.setInt(0, value);
            Sockets.setsockopt(fd, level, name, m, 4);
        }
    }

    /** connect(2) to a struct sockaddr given as bytes. */
    public void connect(int fd, byte[] addr) throws LastErrorException {
        Sockets.connect(fd, addr, addr.length);
    }

    public long send(int fd, byte[] buf, int len, int flags) throws LastErrorException {
        return Sockets.send(fd, buf, new NativeLong(len), flags).longValue();
    }

    public long sendto(int fd, Pointer buf, long len, int flags, Pointer addr, int addrlen) throws LastErrorException {
        return Sockets.sendto(fd, buf, new NativeLong(len), flags, addr, addrlen).longValue();
    }

    public long recv(int fd, Pointer buf, long len, int flags) throws LastErrorException {
        return Sockets.recv(fd, buf, new NativeLong(len), flags).longValue();
    }

    public long recvmsg(int fd, Pointer msg, int flags) throws LastErrorException {
        return Sockets.recvmsg(fd, msg, flags).longValue();
    }

    public int poll(Pointer fds, long nfds, int timeoutMs) throws LastErrorException {
        return Sockets.poll(fds, new NativeLong(nfds), timeoutMs);
    }

    /** close(2); its result is of no use to fabricd (the descriptor is gone either way). */
    public void close(int fd) {
        if (unavailable == null) {
            Sockets.close(fd);
        } else {
            Files.close(fd);
        }
    }

    /** syscall(2) with the arguments of openat2: dirfd, path, struct open_how, its size. */
    public long syscall(long number, int dirfd, String path, byte[] how, long size) throws LastErrorException {
        return Files.syscall(number, dirfd, path, how, size);
    }

    public int open(String path, int flags) throws LastErrorException {
        return Files.open(path, flags);
    }

    public long read(int fd, Pointer buf, long count) throws LastErrorException {
        return Files.read(fd, buf, count);
    }

    public int statx(int dirfd, String path, int flags, int mask, byte[] buf) throws LastErrorException {
        return Files.statx(dirfd, path, flags, mask, buf);
    }
}
