package io.fabricd.probes.udp;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The kernel's drop counter of a UDP socket bound to a port: the last column of its line in
 * {@code /proc/net/udp} and {@code /proc/net/udp6} (packets that arrived while the socket buffer was
 * full). 0 where procfs is not there or has no such socket.
 */
public final class UdpSocketDrops {
    private UdpSocketDrops() {
    }

    public static long of(int port) {
        return of(port, Path.of("/proc/net/udp")) + of(port, Path.of("/proc/net/udp6"));
    }

    /**
     * Sums the drops of the sockets bound to {@code port} in one procfs table. A line reads
     * "sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ref
     * pointer drops", the local address as HEXIP:HEXPORT.
     */
    public static long of(int port, Path table) {
        String suffix = ":" + String.format(Locale.ROOT, "%04X", port);
        long sum = 0;
        try {
            for (String line : Files.readAllLines(table, StandardCharsets.US_ASCII)) {
                String[] f = line.trim().split("\\s+");
                if (f.length < 13 || !f[1].endsWith(suffix)) {
                    continue;
                }
                try {
                    sum += Long.parseLong(f[f.length - 1]);
                } catch (NumberFormatException e) {
                    // the header line or an unknown layout: not counted
                }
            }
        } catch (IOException | RuntimeException e) {
            return 0;
        }
        return sum;
    }
}
