package io.fabricd.agent.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.fabricd.probes.ProbeKey;
import io.fabricd.probes.peers.EndpointClient;
import io.fabricd.probes.verbs.VerbsPorts;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.stream.Stream;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * What the commands that talk to peer agents (probe, bw) share: the PEER arguments, the key, TLS,
 * the GID to send from, the output format and how results and errors are printed.
 */
public final class PeerOptions {
    private static final Path SYS = Path.of("/sys");

    enum Format { text, json }

    @Parameters(arity = "1..*", paramLabel = "PEER", description = "Another agent's HTTP address, HOST:PORT.")
    List<String> peers;

    @Option(names = "--key-file", paramLabel = "FILE",
            description = "The fabric's probe key (default: the environment variable " + ProbeKey.ENV + ").")
    Path keyFile;

    @Option(names = "--tls", description = "Talk to the peers over HTTPS (agents whose web config turns TLS on).")
    boolean tls;

    @Option(names = "--gid-index", paramLabel = "N",
            description = "GID index to send from with verbs (default: a RoCE v2 GID on an IPv4 address; 0 on InfiniBand).")
    Integer gidIndex;

    @Option(names = "--format", defaultValue = "text", description = "text or json (default: ${DEFAULT-VALUE}).")
    Format format;

    /**
     * The probe key, once every PEER is checked: HOST:PORT, its host resolving (a name that does not
     * is said as such, not as a connection that failed). IllegalArgumentException (exit 2) naming
     * every PEER that is not, or when there is no key.
     */
    ProbeKey key() {
        List<String> problems = peers.stream().map(PeerOptions::problem).filter(Objects::nonNull).toList();
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", problems));
        }
        ProbeKey key = ProbeKey.resolve(keyFile);
        if (key == null) {
            throw new IllegalArgumentException("no probe key: give --key-file FILE or set " + ProbeKey.ENV
                    + " (the same key the agents use)");
        }
        return key;
    }

    /** What is wrong with one PEER, or null. */
    private static String problem(String peer) {
        URI uri;
        try {
            uri = URI.create("http://" + peer + "/");
        } catch (IllegalArgumentException e) {
            uri = null;
        }
        if (uri == null || uri.getHost() == null || uri.getPort() < 0 || uri.getRawUserInfo() != null
                || !peer.equals(uri.getRawAuthority())) {
            return "PEER '" + peer + "' is not HOST:PORT (another agent's HTTP address, like 10.0.0.2:9530)";
        }
        String host = EndpointClient.host(peer);
        try {
            InetAddress.getAllByName(host);
            return null;
        } catch (UnknownHostException e) {
            return "cannot resolve host " + host + " (PEER " + peer + "): check the name, or give the agent's IP address";
        }
    }

    /**
     * IllegalArgumentException (exit 2) when this host has no RDMA device where the collection and
     * the verbs transports find them ({@code /sys/class/infiniband}: mlx5_0, rxe0, ...), saying so
     * plainly and then {@code instead}, before anything more obscure can fail.
     */
    static void requireRdma(String instead) {
        Path ib = SYS.resolve("class/infiniband");
        try (Stream<Path> devices = Files.list(ib)) {
            if (devices.findAny().isPresent()) {
                return;
            }
        } catch (IOException e) {
            // no such folder: no RDMA stack at all
        }
        throw new IllegalArgumentException("no RDMA device on this host: " + ib + " is " + (Files.isDirectory(ib) ? "empty" : "missing")
                + " (no RDMA NIC, or its driver is not loaded: mlx5_ib, or `rdma link add` for Soft-RoCE); " + instead);
    }

    /**
     * The local port {@code device} names ("DEV" or "DEV:PORT"), or the first ACTIVE port when it is
     * null, with --gid-index over the GID fabricd would pick.
     */
    VerbsPorts.Port localPort(String device) {
        if (device == null) {
            List<VerbsPorts.Port> ports = VerbsPorts.discover(SYS);
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
        VerbsPorts.Port p = VerbsPorts.of(SYS, dev, port);
        if (p == null && gidIndex == null) {
            throw new IllegalArgumentException("--device " + device + ": no such RDMA port, or no RoCE v2 GID on it (--gid-index picks one)");
        }
        return p == null ? new VerbsPorts.Port(dev, port, gidIndex, "Ethernet") : withGid(p);
    }

    private VerbsPorts.Port withGid(VerbsPorts.Port p) {
        return gidIndex == null ? p : new VerbsPorts.Port(p.device(), p.port(), gidIndex, p.linkLayer());
    }

    /**
     * Prints the results on stdout ({@code {"results": [...]}} as JSON, else {@code table}), then
     * each error on stderr after {@code command}; exit 2 when a peer gave no result.
     */
    int finish(CommandSpec spec, String command, List<Object> results, List<String> errors, Consumer<PrintWriter> table) {
        PrintWriter out = spec.commandLine().getOut();
        if (format == Format.json) {
            try {
                out.print(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(Map.of("results", results)) + "\n");
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        } else {
            table.accept(out);
        }
        out.flush();
        PrintWriter err = spec.commandLine().getErr();
        for (String e : errors) {
            err.println(command + ": " + e);
        }
        err.flush();
        return errors.isEmpty() ? 0 : 2;
    }
}
