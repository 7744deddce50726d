package io.fabricd.agent.preflight;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabricd.agent.loop.CollectionLoop;
import io.fabricd.gate.wire.PreflightWire;
import io.fabricd.gate.wire.PreflightWire.Window;
import io.fabricd.model.probe.ProbeResults;
import io.fabricd.model.topology.Placement;
import io.fabricd.probes.peers.EndpointClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * {@code POST /api/v1/preflight/state}: what this agent knows of its host and its paths, for the
 * gate: the latest collection's findings (the objects {@code fabricd diagnose --format json} prints)
 * and the pingmesh's recent probe windows, each named by the host its peer's endpoint gave. Reads
 * what the collection loop and the pingmesh published; measures nothing.
 *
 * <p>The answer is kept within what a requester reads ({@link #MAX_ANSWER}, as EndpointClient): past
 * it, the windows to agents outside the request's {@code peers} are left out first, then the info
 * findings, then the warnings, then the windows that still do not fit; {@code left_out} counts
 * them. Critical findings always go.
 */
public final class PreflightState {
    public static final String PATH = PreflightWire.STATE;
    /** Most agents a request may name. */
    public static final int MAX_PEERS = 1024;
    /** The most a requester reads of an answer (EndpointClient's bound). */
    static final int MAX_ANSWER = 64 * 1024;

    private final Supplier<CollectionLoop.Published> latest;
    private final Supplier<ProbeResults> probes;
    private final Supplier<Map<String, String>> hosts;
    private final Supplier<String> node;
    private final Duration interval;
    private final Supplier<Optional<Placement>> placement;

    /**
     * @param probes   the pingmesh's windows
     * @param hosts    the host name each probed peer's endpoint gave, by its HOST:PORT
     * @param node     the name this agent goes by among its peers
     * @param interval collection.interval, said in the answer; null to leave it out (the gate then
     *                 holds a collection stale after 5 minutes)
     */
    public PreflightState(Supplier<CollectionLoop.Published> latest, Supplier<ProbeResults> probes, Supplier<Map<String, String>> hosts,
                          Supplier<String> node, Duration interval) {
        this(latest, probes, hosts, node, interval, Optional::empty);
    }

    /** @param placement where this host sits in the fabric, when the agent knows (said as the answer's {@code placement}) */
    public PreflightState(Supplier<CollectionLoop.Published> latest, Supplier<ProbeResults> probes, Supplier<Map<String, String>> hosts,
                          Supplier<String> node, Duration interval, Supplier<Optional<Placement>> placement) {
        this.latest = latest;
        this.probes = probes;
        this.hosts = hosts;
        this.node = node;
        this.interval = interval;
        this.placement = placement;
    }

    /** The answer to an authenticated body (off the event loop: it renders JSON). */
    public Answer answer(byte[] body) {
        List<String> peers;
        try {
            PreflightWire.StateRequest none = new PreflightWire.StateRequest(PreflightWire.VERSION, List.of());
            peers = Requests.peers(Requests.read(body, PreflightWire.StateRequest.class, none).peers(), 0, MAX_PEERS);
        } catch (Requests.Bad e) {
            return Answer.line(400, e.getMessage());
        }
        CollectionLoop.Published p = latest.get();
        if (p == null) {
            return Answer.line(503, "first collection not finished: ask again in a few seconds");
        }
        List<JsonNode> findings = new ArrayList<>();
        try {
            PreflightWire.REQUESTS.readTree(p.findingsJson()).get("findings").forEach(findings::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // the agent's own rendering
        }
        List<Window> windows = windows(probes.get(), hosts.get());
        int allFindings = findings.size();
        int allWindows = windows.size();
        Set<String> wanted = new HashSet<>(peers);
        peers.forEach(x -> wanted.add(EndpointClient.host(x)));
        // what to leave out when the whole does not fit, in this order
        List<Predicate<Object>> cuts = List.of(
                o -> o instanceof Window w && !peers.isEmpty() && !wanted.contains(w.peerAddress()) && !wanted.contains(w.peer()),
                o -> o instanceof JsonNode f && "info".equals(f.path("severity").asText()),
                o -> o instanceof JsonNode f && "warning".equals(f.path("severity").asText()));
        byte[] out = render(p, findings, windows, null, null);
        for (int i = 0; i < cuts.size() && out.length > MAX_ANSWER; i++) {
            Predicate<Object> cut = cuts.get(i);
            windows = windows.stream().filter(w -> !cut.test(w)).toList();
            findings = findings.stream().filter(f -> !cut.test(f)).toList();
            out = render(p, findings, windows, allFindings - findings.size(), allWindows - windows.size());
        }
        // the set's own windows alone too many (or no set named): as many as fit, in the order of their peers
        while (out.length > MAX_ANSWER && !windows.isEmpty()) {
            int keep = (int) Math.min(windows.size() - 1L, (long) windows.size() * (MAX_ANSWER - 1024) / out.length);
            windows = windows.subList(0, Math.max(0, keep));
            out = render(p, findings, windows, allFindings - findings.size(), allWindows - windows.size());
        }
        return Answer.json(out);
    }

    private static List<Window> windows(ProbeResults r, Map<String, String> hosts) {
        List<Window> out = new ArrayList<>();
        for (ProbeResults.Window w : r.windows()) {
            out.add(new Window(hosts.getOrDefault(w.peer(), w.peer()), w.peer(), w.transport(), w.size(), w.sent(), w.lost(), w.late(),
                    w.p50Seconds(), w.p99Seconds(), w.holdP50Seconds(), w.holdP90Seconds()));
        }
        return out;
    }

    private byte[] render(CollectionLoop.Published p, List<JsonNode> findings, List<Window> windows, Integer leftFindings,
                          Integer leftProbes) {
        PreflightWire.StateAnswer a = new PreflightWire.StateAnswer(PreflightWire.VERSION, node.get(), p.model().hostname(),
                p.model().collectedAt().toString(), interval == null ? null : interval.toMillis() / 1000.0, findings, windows,
                leftFindings == null ? null : new PreflightWire.LeftOut(leftFindings, leftProbes),
                placement.get().map(x -> new PreflightWire.Placement(x.switches(), x.accelerator(), x.source().wireName())).orElse(null));
        try {
            return PreflightWire.ANSWERS.writeValueAsBytes(a);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
