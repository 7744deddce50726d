package io.fabricd.collectors.kernel.live;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.NativeLong;
import com.sun.jna.Pointer;

/** The libc calls fabricd makes: sockets, ioctl, netlink send/receive. */
interface LibC extends Library {
    LibC INSTANCE = Native.load("c", LibC.class);

    int AF_INET = 2;
    int AF_NETLINK = 16;
    int SOCK_DGRAM = 2;
    int SOCK_RAW = 3;
    int SOL_SOCKET = 1;
    int SO_RCVTIMEO = 20;

    int socket(int domain, int type, int protocol) throws LastErrorException;

    int ioctl(int fd, NativeLong request, Pointer arg) throws LastErrorException;

    NativeLong sendto(int fd, Pointer buf, NativeLong len, int flags, Pointer addr, int addrlen) throws LastErrorException;

    NativeLong recv(int fd, Pointer buf, NativeLong len, int flags) throws LastErrorException;

    int setsockopt(int fd, int level, int name, Pointer value, int len) throws LastErrorException;

    int close(int fd);
}
