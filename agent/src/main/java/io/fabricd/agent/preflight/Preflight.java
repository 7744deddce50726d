package io.fabricd.agent.preflight;

import io.fabricd.agent.loop.CollectionLoop;
import io.fabricd.agent.config.AgentConfig;
import io.fabricd.collectors.source.HostSource;
import io.fabricd.gate.wire.PreflightWire;
import io.fabricd.model.topology.Placement;
import io.fabricd.natives.Natives;
import io.fabricd.probes.bandwidth.BandwidthClient;
import io.fabricd.probes.bandwidth.BandwidthServer;
import io.fabricd.probes.bandwidth.Ceiling;
import io.fabricd.probes.mesh.ProbeService;
import io.fabricd.probes.peers.EndpointClient;
import io.fabricd.probes.verbs.VerbsPorts;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.function.Supplier;

/**
 * What an agent answers the job gate, {@code fabricd preflight} (docs/preflight.md): its state
 * ({@link PreflightState}), an on-demand probe round ({@link ProbeRound}) and a bandwidth test
 * ({@link PreflightBandwidth}), each a POST signed with the probe key (the HTTP layer checks it).
 */
public final class Preflight {
    /** The paths, in the order above. */
    public static final List<String> PATHS = PreflightWire.PATHS;

    private final PreflightState state;
    private final ProbeRound probe;
    private final PreflightBandwidth bandwidth;

    public Preflight(PreflightState state, ProbeRound probe, PreflightBandwidth bandwidth) {
        this.state = state;
        this.probe = probe;
        this.bandwidth = bandwidth;
    }

    /**
     * The three of a running agent with probing on.
     *
     * @param writes the agent's one slot for the bandwidth tests it writes (its schedule's too)
     * @param served the server of tests into this host; null when it serves none
     * @param port   the local port to write from (the first ACTIVE one); null when there is none
     * @param node   the name the agent goes by among its peers
     * @param placement where this host sits in the fabric, when the agent knows (the state answer's {@code placement})
     */
    public static Preflight of(AgentConfig config, HostSource source, CollectionLoop loop, ProbeService probes, Natives natives,
                               Semaphore writes, BandwidthServer served, Supplier<VerbsPorts.Port> port, Supplier<String> node,
                               Supplier<Optional<Placement>> placement) {
        PreflightState state = new PreflightState(loop::latest, probes::results, probes::peerHosts, node, config.collection().interval(),
                placement);
        ProbeRound round = new ProbeRound(probes.key(), natives.libc(), probes.endpointTlsOn(), config.probe().pacing(),
                config.probe().timeout(), node);
        String why = natives.verbs().rcUnavailable();
        String off = source.isSnapshot() ? "this agent reads a snapshot, not a live host: no bandwidth tests"
                : why != null ? "no bandwidth tests from this agent: " + why : null;
        EndpointClient endpoints = new EndpointClient(probes.key(), Duration.ofSeconds(20), probes.endpointTlsOn());
        PreflightBandwidth bw = new PreflightBandwidth(off,
                (peer, p, local, o) -> new BandwidthClient(natives.verbs(), endpoints, node.get()).run(peer, p, local, o), port,
                () -> Ceiling.Local.of(loop.latest() == null ? null : loop.latest().model()), writes,
                served == null ? () -> false : served::busy, node, config.http().idleTimeout());
        return new Preflight(state, round, bw);
    }

    /** The answer to an authenticated body of {@code path} (one of {@link #PATHS}); called off the event loop, returns at once. */
    public CompletableFuture<Answer> answer(String path, byte[] body) {
        if (path.equals(PreflightState.PATH)) {
            return CompletableFuture.completedFuture(state.answer(body));
        }
        if (path.equals(ProbeRound.PATH)) {
            return probe.answer(body);
        }
        return bandwidth.answer(body);
    }
}
