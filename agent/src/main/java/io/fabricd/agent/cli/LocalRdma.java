package io.fabricd.agent.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Whether this host has an RDMA device, found where the collection and the verbs transports find
 * them: {@code /sys/class/infiniband} (mlx5_0, rxe0, ...). Commands that need one say plainly when
 * there is none, and what to do instead, before anything more obscure can fail.
 */
final class LocalRdma {
    static final Path SYS = Path.of("/sys");

    private LocalRdma() {
    }

    /** Why {@code sys} shows no RDMA device ("no RDMA device on this host: ..."), or null when it shows one. */
    static String missing(Path sys) {
        Path ib = sys.resolve("class/infiniband");
        try (Stream<Path> devices = Files.list(ib)) {
            if (devices.findAny().isPresent()) {
                return null;
            }
        } catch (IOException e) {
            // no such folder: no RDMA stack at all
        }
        return "no RDMA device on this host: " + ib + " is " + (Files.isDirectory(ib) ? "empty" : "missing")
                + " (no RDMA NIC, or its driver is not loaded: mlx5_ib, or `rdma link add` for Soft-RoCE)";
    }

    /** IllegalArgumentException (exit 2): no RDMA device here, then {@code instead}. */
    static void require(Path sys, String instead) {
        String why = missing(sys);
        if (why != null) {
            throw new IllegalArgumentException(why + "; " + instead);
        }
    }
}
