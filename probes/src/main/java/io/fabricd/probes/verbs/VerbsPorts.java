package io.fabricd.probes.verbs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The RDMA ports a verbs prober or responder can use, read from sysfs: ACTIVE ports, each with the
 * GID index to send from — on RoCE a RoCE v2 GID on an IPv4 address (routable, what NCCL and
 * perftest's {@code -x} pick), else a RoCE v2 GID outside fe80::/10, else any RoCE v2 GID; on
 * InfiniBand index 0.
 */
public final class VerbsPorts {
    private VerbsPorts() {
    }

    public record Port(String device, int port, int gidIndex, String linkLayer) {
    }

    public static List<Port> discover(Path sys) {
        List<Port> out = new ArrayList<>();
        Path ib = sys.resolve("class/infiniband");
        try (Stream<Path> devs = Files.list(ib)) {
            for (Path d : devs.sorted().toList()) {
                try (Stream<Path> ports = Files.list(d.resolve("ports"))) {
                    for (Path p : ports.sorted().toList()) {
                        Port port = port(d.getFileName().toString(), p, true);
                        if (port != null) {
                            out.add(port);
                        }
                    }
                } catch (IOException | RuntimeException e) {
                    // a device without readable ports offers nothing
                }
            }
        } catch (IOException e) {
            // no RDMA devices
        }
        return out;
    }

    /** The port of {@code device} given by name, ACTIVE or not; null when it has no usable GID. */
    public static Port of(Path sys, String device, int port) {
        return port(device, sys.resolve("class/infiniband/" + device + "/ports/" + port), false);
    }

    private static Port port(String device, Path p, boolean activeOnly) {
        int n;
        try {
            n = Integer.parseInt(p.getFileName().toString());
        } catch (NumberFormatException e) {
            return null;
        }
        String state = read(p.resolve("state"));
        if (activeOnly && (state == null || !state.startsWith("4"))) {
            return null;
        }
        String ll = read(p.resolve("link_layer"));
        if (state == null && ll == null) {
            return null; // no such port
        }
        if (!"Ethernet".equals(ll)) {
            return new Port(device, n, 0, ll == null ? "InfiniBand" : ll);
        }
        int best = -1;
        int bestRank = 0;
        for (int i = 0; i < 256; i++) {
            String gid = read(p.resolve("gids/" + i));
            if (gid == null) {
                break;
            }
            if (gid.replace(":", "").replace("0", "").isEmpty() || !"RoCE v2".equals(read(p.resolve("gid_attrs/types/" + i)))) {
                continue;
            }
            int rank = gid.startsWith("0000:0000:0000:0000:0000:ffff:") ? 3 : gid.startsWith("fe80") ? 1 : 2;
            if (rank > bestRank) {
                best = i;
                bestRank = rank;
            }
        }
        return best < 0 ? null : new Port(device, n, best, ll);
    }

    private static String read(Path f) {
        try {
            return Files.readString(f).strip();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
