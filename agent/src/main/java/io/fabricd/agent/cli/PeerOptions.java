package io.fabricd.agent.cli;

import io.fabricd.probes.ProbeKey;
import io.fabricd.probes.verbs.VerbsPorts;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Option;

/** The options of the commands that talk to peer agents (probe, bw): the key, TLS, and the GID to send from. */
public final class PeerOptions {
    @Option(names = "--key-file", paramLabel = "FILE",
            description = "The fabric's probe key (default: the environment variable " + ProbeKey.ENV + ").")
    Path keyFile;

    @Option(names = "--tls", description = "Talk to the peers over HTTPS (agents whose web config turns TLS on).")
    boolean tls;

    @Option(names = "--gid-index", paramLabel = "N",
            description = "GID index to send from with verbs (default: a RoCE v2 GID on an IPv4 address; 0 on InfiniBand).")
    Integer gidIndex;

    /** The probe key; IllegalArgumentException (exit 2) when there is none. */
    ProbeKey key() {
        ProbeKey key = ProbeKey.resolve(keyFile);
        if (key == null) {
            throw new IllegalArgumentException("no probe key: give --key-file FILE or set " + ProbeKey.ENV
                    + " (the same key the agents use)");
        }
        return key;
    }

    /**
     * The local port {@code device} names ("DEV" or "DEV:PORT"), or the first ACTIVE port when it is
     * null, with --gid-index over the GID fabricd would pick.
     */
    VerbsPorts.Port localPort(String device) {
        if (device == null) {
            List<VerbsPorts.Port> ports = VerbsPorts.discover(Path.of("/sys"));
            if (ports.isEmpty()) {
                throw new IllegalArgumentException("no ACTIVE RDMA port on this host (--device DEV picks one)");
            }
            return withGid(ports.get(0));
        }
        String dev = device;
        int port = 1;
        int c = device.lastIndexOf(':');
        if (c > 0) {
            dev = device.substring(0, c);
            try {
                port = Integer.parseInt(device.substring(c + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--device " + device + ": not DEV or DEV:PORT");
            }
        }
        VerbsPorts.Port p = VerbsPorts.of(Path.of("/sys"), dev, port);
        if (p == null && gidIndex == null) {
            throw new IllegalArgumentException("--device " + device + ": no such RDMA port, or no RoCE v2 GID on it (--gid-index picks one)");
        }
        return p == null ? new VerbsPorts.Port(dev, port, gidIndex, "Ethernet") : withGid(p);
    }

    private VerbsPorts.Port withGid(VerbsPorts.Port p) {
        return gidIndex == null ? p : new VerbsPorts.Port(p.device(), p.port(), gidIndex, p.linkLayer());
    }
}
