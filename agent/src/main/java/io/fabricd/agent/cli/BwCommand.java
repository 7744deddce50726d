package io.fabricd.agent.cli;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import io.fabricd.agent.config.AgentConfig;
import io.fabricd.agent.config.ConfigLoader;
import io.fabricd.model.HostModel;
import io.fabricd.natives.VerbsShim;
import io.fabricd.probes.ProbeKey;
import io.fabricd.probes.bandwidth.BandwidthClient;
import io.fabricd.probes.bandwidth.BandwidthResult;
import io.fabricd.probes.bandwidth.Ceiling;
import io.fabricd.probes.bandwidth.VerbsRc;
import io.fabricd.probes.peers.EndpointClient;
import io.fabricd.probes.verbs.VerbsPorts;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code fabricd bw PEER...}: RDMA WRITE bandwidth into each peer agent, against what the link should carry. */
@Command(name = "bw", mixinStandardHelpOptions = true,
        description = "Measure RDMA bandwidth to other fabricd agents, as ib_write_bw does: RC queue pairs, RDMA WRITE from a local "
                + "port into each PEER (its HTTP HOST:PORT), set up over the authenticated endpoint API; Gb/s, message rate and "
                + "the share of what the link and both NICs' PCIe can carry (docs/bandwidth.md).")
public final class BwCommand implements Callable<Integer> {
    @Option(names = "--device", paramLabel = "DEV[:PORT]", description = "Local RDMA device to write from (default: the first ACTIVE port).")
    String device;

    @Option(names = "--peer-device", paramLabel = "DEV", description = "The peer's RDMA device to write into (default: its first ACTIVE port).")
    String peerDevice;

    @Option(names = "--size", paramLabel = "BYTES", defaultValue = "65536", description = "Bytes per RDMA WRITE (default: ${DEFAULT-VALUE}).")
    long size;

    @Option(names = "--duration", paramLabel = "TIME", defaultValue = "5s", description = "How long to write (default: ${DEFAULT-VALUE}).")
    String duration;

    @Option(names = "--qps", paramLabel = "N", defaultValue = "1", description = "Queue pairs (default: ${DEFAULT-VALUE}).")
    int qps;

    @Option(names = "--send", description = "SENDs into receives the peer posts (as ib_send_bw), not RDMA WRITEs.")
    boolean send;

    @Option(names = "--bidirectional", description = "The peer writes back at the same time (as ib_write_bw -b); RDMA WRITE only.")
    boolean bidirectional;

    @Mixin
    PeerOptions options;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        ProbeKey key = options.key();
        if (size < 1 || size > 1L << 30) {
            throw new IllegalArgumentException("--size must be 1 to 1073741824 bytes");
        }
        if (qps < 1 || qps > VerbsRc.MAX_QPS) {
            throw new IllegalArgumentException("--qps must be 1 to " + VerbsRc.MAX_QPS);
        }
        Duration d;
        try {
            d = ConfigLoader.parseDuration(duration); // saturates rather than overflows
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--duration " + e.getMessage());
        }
        if (d.toMillis() < 1 || d.toMinutes() > 60) {
            throw new IllegalArgumentException("--duration must be 1ms to 60m");
        }
        int c = device == null ? -1 : device.lastIndexOf(':');
        if (c > 0 && !device.substring(c + 1).matches("0*([1-9]|[1-9]\\d|1\\d\\d|2[0-4]\\d|25[0-5])")) {
            throw new IllegalArgumentException("--device " + device + ": PORT must be 1 to 255");
        }
        if (options.gidIndex != null && (options.gidIndex < 0 || options.gidIndex > 255)) {
            throw new IllegalArgumentException("--gid-index must be 0 to 255");
        }
        if (send && bidirectional) {
            throw new IllegalArgumentException("--bidirectional is RDMA WRITE only (not with --send)");
        }
        PeerOptions.requireRdma("fabricd bw writes over RDMA: run it on a host with an RDMA NIC "
                + "(`fabricd probe PEER` measures loss and latency over UDP without one)");
        VerbsShim verbs = VerbsShim.load();
        String why = verbs.rcUnavailable();
        if (why != null) {
            throw new IllegalArgumentException(why);
        }
        VerbsPorts.Port local = options.localPort(device);
        PrintWriter err = spec.commandLine().getErr();
        HostModel here = collectLocal(err);
        Ceiling.Local ceiling = Ceiling.Local.of(here);
        BandwidthClient client = new BandwidthClient(verbs, new EndpointClient(key, Duration.ofSeconds(20), options.tls), nodeName(here));
        List<Object> results = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        for (String peer : options.peers) {
            if (options.format == PeerOptions.Format.text) {
                err.printf(Locale.ROOT, "writing from %s port %d into %s: %d x %d B %s%s for %s ...%n", local.device(), local.port(), peer, qps,
                        size, send ? "SEND" : "RDMA WRITE", bidirectional ? " both ways" : "", duration);
                err.flush();
            }
            try {
                BandwidthClient.Options o = new BandwidthClient.Options(peerDevice, size, d, qps, send, bidirectional);
                client.run(peer, local, ceiling, o).forEach(r -> results.add(Line.of(r)));
            } catch (IOException e) {
                errors.add(e.getMessage());
                results.add(new PeerError(peer, String.valueOf(e.getMessage())));
            }
        }
        return options.finish(spec, "fabricd bw", results, errors, out -> table(out, results));
    }

    private static void table(PrintWriter out, List<Object> results) {
        if (results.stream().noneMatch(Line.class::isInstance)) {
            return;
        }
        out.printf("%-22s %-10s %-10s %-3s %8s %4s %10s %12s %10s %6s %s%n", "peer", "device", "peer_dev", "dir", "size", "qps", "gbps",
                "msg_per_s", "ceil_gbps", "ratio", "limit");
        for (Object o : results) {
            if (o instanceof Line r) {
                out.printf(Locale.ROOT, "%-22s %-10s %-10s %-3s %8d %4d %10.2f %12.0f %10s %6s %s%n", r.peer(), r.device(), r.peerDevice(),
                        r.direction(), r.size(), r.qps(), r.bitsPerSecond() / 1e9, r.messagesPerSecond(),
                        r.ceilingBitsPerSecond() == null ? "-" : String.format(Locale.ROOT, "%.2f", r.ceilingBitsPerSecond() / 1e9),
                        r.ratio() == null ? "-" : String.format(Locale.ROOT, "%.2f", r.ratio()), r.limit());
            }
        }
    }

    /** One result as the JSON output writes it. */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    record Line(String peer, String device, String peerDevice, String direction, long size, int qps, long bytes, long messages,
                double seconds, double bitsPerSecond, double messagesPerSecond, Double ceilingBitsPerSecond, Double ratio, String limit) {
        static Line of(BandwidthResult r) {
            return new Line(r.peer(), r.device(), r.peerDevice(), r.direction(), r.size(), r.qps(), r.bytes(), r.messages(), r.nanos() / 1e9,
                    r.bps(), r.messageRate(), r.ceilingBps(), r.ratio(), r.limit());
        }
    }

    /** This host's ports and PCIe, once, for the ceiling (the live host, as `fabricd metrics` reads it). */
    private static HostModel collectLocal(PrintWriter err) {
        try {
            return new HostOptions().collectOnce(AgentConfig.defaults(), err);
        } catch (RuntimeException e) {
            return null; // no ceiling then, not no test
        }
    }

    /** The name the peer keeps this writer's result under: NODE_NAME (a pod's node), else the host's name. */
    private static String nodeName(HostModel here) {
        String n = System.getenv("NODE_NAME");
        if (n != null && !n.isBlank()) {
            return n;
        }
        return here != null && here.hostname() != null ? here.hostname() : "unknown";
    }
}
