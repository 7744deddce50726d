package io.fabricd.agent.cli;

import io.fabricd.agent.config.ConfigLoader;
import io.fabricd.natives.LibC;
import io.fabricd.natives.VerbsShim;
import io.fabricd.probes.ProbeKey;
import io.fabricd.probes.ProbePacket;
import io.fabricd.probes.ProbeResult;
import io.fabricd.probes.mesh.ProbeSession;
import io.fabricd.probes.mesh.UdpPeerProbe;
import io.fabricd.probes.peers.Endpoint;
import io.fabricd.probes.peers.EndpointClient;
import io.fabricd.probes.udp.StampedSocket;
import io.fabricd.probes.udp.UdpTransport;
import io.fabricd.probes.verbs.VerbsPorts;
import io.fabricd.probes.verbs.VerbsTransport;
import io.fabricd.probes.verbs.VerbsUd;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.logging.Logger;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code fabricd probe PEER...}: asks each peer agent for its probe endpoint and probes it. */
@Command(name = "probe", mixinStandardHelpOptions = true,
        description = "Probe other fabricd agents: ask each PEER (its HTTP HOST:PORT) for its probe endpoint, then send "
                + "--count probes of each --size and report loss and round-trip times (docs/probes.md).")
public final class ProbeCommand implements Callable<Integer> {
    enum Transport { udp, verbs }

    @Option(names = "--count", defaultValue = "100", description = "Probes per peer and size (default: ${DEFAULT-VALUE}).")
    int count;

    @Option(names = "--size", paramLabel = "BYTES", description = "Probe size in bytes; repeatable (default: 64 and 1024).")
    List<Integer> sizes;

    @Option(names = "--transport", defaultValue = "udp", description = "udp or verbs (default: ${DEFAULT-VALUE}).")
    Transport transport;

    @Option(names = "--device", paramLabel = "DEV", description = "Local RDMA device for the verbs transport.")
    String device;

    @Mixin
    PeerOptions options;

    @Option(names = "--interval", defaultValue = "10ms", description = "Time between two probes (default: ${DEFAULT-VALUE}).")
    String interval;

    @Option(names = "--timeout", defaultValue = "1s", description = "Answers later than this are late (default: ${DEFAULT-VALUE}).")
    String timeout;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        ProbeKey key = options.key();
        if (count < 1 || count > 1_000_000) {
            throw new IllegalArgumentException("--count must be 1-1000000");
        }
        List<Integer> sz = sizes == null || sizes.isEmpty() ? List.of() : sizes;
        for (int s : sz) {
            if (s < ProbePacket.MIN_SIZE || s > ProbePacket.MAX_SIZE) {
                throw new IllegalArgumentException("--size " + s + " outside " + ProbePacket.MIN_SIZE + ".." + ProbePacket.MAX_SIZE);
            }
        }
        VerbsPorts.Port local = null;
        if (transport == Transport.verbs) {
            local = localPort();
        }
        Duration pace = ConfigLoader.parseDuration(interval);
        Duration to = ConfigLoader.parseDuration(timeout);
        EndpointClient client = new EndpointClient(key, Duration.ofSeconds(20), options.tls);
        List<Object> results = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        PrintWriter err = spec.commandLine().getErr();
        String unstamped = transport == Transport.verbs ? null : StampedSocket.unavailable(LibC.load());
        if (unstamped != null) {
            Logger.getLogger(UdpTransport.class.getName()).info("UDP probes are timed in the JVM, not by the kernel: " + unstamped);
        }
        for (String peer : options.peers) {
            Endpoint ep;
            try {
                ep = client.fetch(peer);
            } catch (IOException e) {
                errors.add(e.getMessage());
                results.add(new PeerError(peer, e.getMessage()));
                continue;
            }
            if (transport == Transport.verbs) {
                verbs(peer, ep, local, sz, key, pace, to, results, errors, err);
                continue;
            }
            if (ep.udpPort() == null) {
                errors.add(peer + " runs no UDP responder");
                continue;
            }
            try {
                for (UdpPeerProbe.Sized r : UdpPeerProbe.run(LibC.load(), key, peer, ep, sz.isEmpty() ? List.of(64, 1024) : sz, count, pace, to,
                        size -> progress(err, peer, ep, size))) {
                    if (r.result() != null) {
                        results.add(r.result());
                    } else {
                        errors.add(peer + ": " + r.error());
                        results.add(new PeerError(peer, null, r.size(), r.error()));
                    }
                }
            } catch (IOException e) {
                errors.add(peer + ": " + e.getMessage());
                results.add(new PeerError(peer, String.valueOf(e.getMessage())));
            }
        }
        // loss is a measurement, not an error; a peer that could not be asked is unusable input
        return options.finish(spec, "fabricd probe", results, errors, out -> table(out, results));
    }

    private static void table(PrintWriter out, List<Object> results) {
        if (results.stream().noneMatch(ProbeResult.class::isInstance)) { // no empty table when nothing was probed
            return;
        }
        out.printf("%-22s %-5s %6s %6s %6s %5s %5s %10s %10s %10s %10s %11s%n", "peer", "trans", "size", "sent", "recv", "late",
                "lost", "min_us", "p50_us", "p99_us", "max_us", "host_p50_us");
        for (Object o : results) {
            if (o instanceof ProbeResult r) {
                Map<String, Double> q = r.rttSeconds();
                out.printf(Locale.ROOT, "%-22s %-5s %6d %6d %6d %5d %5d %10s %10s %10s %10s %11s%n", r.peer(), r.transport(), r.size(),
                        r.sent(), r.received(), r.late(), r.lost(), us(q, "min"), us(q, "p50"), us(q, "p99"), us(q, "max"),
                        us(r.hostSeconds(), "p50"));
            }
        }
    }

    private void progress(PrintWriter err, String peer, Endpoint ep, int size) {
        if (options.format == PeerOptions.Format.text) {
            err.printf(Locale.ROOT, "probing %s (%s, udp port %d): %d x %d B ...%n", peer, ep.host(), ep.udpPort(), count, size);
            err.flush();
        }
    }

    /** The verbs shim, loaded when --transport verbs asks for it. */
    private VerbsShim verbs;

    /** --device DEV[:PORT] on this host, with the GID index to send from. */
    private VerbsPorts.Port localPort() {
        PeerOptions.requireRdma("--transport verbs probes over RDMA: use --transport udp (the default)");
        if (device == null) {
            throw new IllegalArgumentException("--transport verbs needs --device DEV (a local RDMA device, e.g. mlx5_0 or rxe1)");
        }
        verbs = VerbsShim.load();
        String why = verbs.udUnavailable();
        if (why != null) {
            throw new IllegalArgumentException("--transport verbs: " + why);
        }
        return options.localPort(device);
    }

    /** Probes one peer over RDMA UD: from the local port to the peer's first UD responder that is not this port. */
    private void verbs(String peer, Endpoint ep, VerbsPorts.Port local, List<Integer> sz, ProbeKey key,
                       Duration pace, Duration to, List<Object> results, List<String> errors, PrintWriter err) {
        try (VerbsUd probe = new VerbsUd(verbs, local.device(), local.port(), local.gidIndex(), 4096, 256)) {
            VerbsUd.Address me = probe.address();
            String myGid = VerbsUd.gidText(me.gid());
            Endpoint.Device remote = ep.firstOtherThan(myGid);
            if (remote == null) {
                errors.add(peer + " has no RDMA UD responder (" + ep.verbsStatus() + ")");
                return;
            }
            VerbsTransport t = new VerbsTransport(probe, remote, me.activeMtu());
            for (int size : sz.isEmpty() ? List.of(64, t.maxSize()) : sz) {
                if (options.format == PeerOptions.Format.text) {
                    err.printf(Locale.ROOT, "probing %s (%s, %s qpn %d) from %s: %d x %d B ...%n", peer, ep.host(), remote.device(),
                            remote.qpn(), local.device(), count, size);
                    err.flush();
                }
                results.add(new ProbeSession(t, key, pace, to).run(peer, local.device(), remote.device(), size, count));
            }
        } catch (IOException | IllegalArgumentException e) {
            errors.add(peer + ": " + e.getMessage());
            results.add(new PeerError(peer, "verbs", null, String.valueOf(e.getMessage())));
        }
    }

    private static String us(Map<String, Double> q, String k) {
        return q == null ? "-" : String.format(Locale.ROOT, "%.1f", q.get(k) * 1e6);
    }
}
