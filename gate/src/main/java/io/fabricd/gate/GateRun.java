package io.fabricd.gate;

import io.fabricd.model.topology.Topology;
import io.fabricd.preflight.Gate;
import io.fabricd.preflight.NodeInput;
import io.fabricd.preflight.Policy;
import io.fabricd.preflight.Verdicts;
import io.fabricd.probes.ProbeKey;
import io.fabricd.probes.peers.EndpointClient;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One preflight run over a node set: every agent's state, the on-demand probe round over a ring
 * and the repair round for suspects, the bandwidth ring, then the gate's decision, with the fabric
 * view where the topology handed to it and the agents' placements place the nodes ({@link FleetTopology}). Every phase
 * ends within its share of the time budget; one progress line per phase goes to {@code progress},
 * and the same as a {@link GatePhase} into the result.
 */
public final class GateRun {
    /** What the command line sets. */
    public record Settings(ProbeKey key, boolean tls, boolean probeRound, boolean bandwidth, Duration bandwidthDuration,
                           int bandwidthSize, Policy policy, Duration timeout) {
    }

    /** The decision, how long it took, and what each phase did (in the order they ran). */
    public record Result(Verdicts verdicts, Duration elapsed, List<GatePhase> phases) {
        public Result {
            phases = List.copyOf(phases);
        }
    }

    /** The least time worth a probe round. */
    private static final Duration ENOUGH = Duration.ofSeconds(2);
    /** The most of the budget the state phase may take. */
    private static final double STATE_SHARE = 0.4;
    /** Most peers in one state request (the agents' limit). */
    static final int MAX_STATE_PEERS = 1024;

    private final List<NodeSet.Node> nodes;
    private final Settings s;
    private final PrintWriter progress;
    private final Budget budget;
    private final AgentAsk.Transport transport;
    private final Clock clock;
    private final Topology topology;

    public GateRun(List<NodeSet.Node> nodes, Settings settings, PrintWriter progress) {
        this(nodes, settings, Topology.EMPTY, progress);
    }

    /**
     * @param topology where the set's nodes sit, as the site says ({@link Topology#EMPTY}: unknown); the
     *                 agents' own placements complete it ({@link FleetTopology})
     */
    public GateRun(List<NodeSet.Node> nodes, Settings settings, Topology topology, PrintWriter progress) {
        this(nodes, settings, topology, progress, null, Clock.systemUTC());
    }

    GateRun(List<NodeSet.Node> nodes, Settings settings, PrintWriter progress, AgentAsk.Transport transport, Clock clock) {
        this(nodes, settings, Topology.EMPTY, progress, transport, clock);
    }

    /**
     * @param transport how requests reach the agents; null: {@link EndpointClient} with the settings' key
     * @param clock     what a stale collection is judged against (when its agent answered)
     */
    GateRun(List<NodeSet.Node> nodes, Settings settings, Topology topology, PrintWriter progress, AgentAsk.Transport transport, Clock clock) {
        this.topology = topology;
        this.nodes = List.copyOf(nodes);
        this.s = settings;
        this.progress = progress;
        this.budget = new Budget(settings.timeout());
        this.transport = transport;
        this.clock = clock;
    }

    public Result run() {
        say(Texts.count(nodes.size(), "node") + ", " + Texts.seconds(s.timeout()) + " budget: asking every agent for its findings and probe "
                + "windows");
        // the per-request cap of the client; each phase ends its calls by its own deadline besides
        AgentAsk ask = new AgentAsk(transport != null ? transport : new EndpointClient(s.key(), budget.total(), s.tls())::ask);
        LinkEvidence links = new LinkEvidence();
        List<GatePhase> phases = new ArrayList<>();
        try (FleetCalls calls = new FleetCalls(FleetCalls.PARALLEL)) {
            NodeStates states = new NodeStates(nodes, ask, calls, clock);
            states.gather(budget.phase(stateCap(), reserve()), budget.phase(budget.share(STATE_SHARE), reserve()));
            boolean windows = states.windowsInto(links, budget.deadline(reserve()));
            ended(phases, states.phase(windows));
            List<String> up = states.reachable();
            ProbeRounds rounds = new ProbeRounds(nodes, ask, calls, s.policy().minSamples());
            if (s.probeRound()) {
                // as long as the pairs need: a healthy set is done in one attempt, one whose agents fail asks again
                Duration d = budget.phase(budget.partOfLeft(s.bandwidth() ? 0.4 : 0.7), reserve());
                ended(phases, up.size() < 2 ? GatePhase.skipped(GatePhase.Kind.PROBE_ROUND, 0, "probe round: not run: fewer than two"
                        + " agents answered") : d.compareTo(ENOUGH) >= 0 ? rounds.ring(up, links, d)
                        : GatePhase.skipped(GatePhase.Kind.PROBE_ROUND, up.size(), "probe round skipped: no time left (--timeout)"));
            }
            if (s.bandwidth()) {
                Duration d = budget.phase(budget.partOfLeft(s.probeRound() ? 0.75 : 1), reserve());
                ended(phases, up.size() < 2 ? GatePhase.skipped(GatePhase.Kind.BANDWIDTH, 0, "bandwidth ring: not run: fewer than two"
                        + " agents answered") : new BandwidthRing(nodes, ask, calls, s.bandwidthDuration(), s.bandwidthSize()).run(up, links, d));
            }
            List<NodeInput> inputs = states.inputs();
            FleetTopology fabric = FleetTopology.of(topology, states.placements(), nodes.stream().map(NodeSet.Node::name).toList());
            if (fabric.line() != null) {
                say(fabric.line());
            }
            Verdicts first = Gate.decide(inputs, links.inputs(), s.policy(), fabric.topology());
            Verdicts last = first;
            if (s.probeRound() && !first.suspectNodes().isEmpty()) {
                Duration d = budget.phase(budget.left(), reserve());
                if (d.compareTo(ENOUGH) >= 0) {
                    ended(phases, rounds.repair(first, up, links, d));
                    last = Gate.decide(inputs, links.inputs(), s.policy(), fabric.topology());
                } else {
                    ended(phases, GatePhase.skipped(GatePhase.Kind.REPAIR_ROUND, first.suspectNodes().size(),
                            "repair round skipped: no time left (--timeout)"));
                }
            }
            return new Result(last, budget.elapsed(), phases);
        }
    }

    /** Says the phase's line with the time it ended, and keeps it with that time. */
    private void ended(List<GatePhase> phases, GatePhase phase) {
        Duration at = budget.elapsed();
        say(phase.summary() + " (" + Texts.seconds(at) + ")");
        phases.add(phase.at(at));
    }

    /**
     * The state phase's least time: 40 % of the budget, at least 2 s and at most 10 s (an agent answers
     * in milliseconds; the cap is for those that do not answer at all). It goes on past it while
     * answers still come, up to {@link #STATE_SHARE} of the budget.
     */
    private Duration stateCap() {
        Duration q = budget.share(STATE_SHARE);
        return q.compareTo(Duration.ofSeconds(10)) > 0 ? Duration.ofSeconds(10) : q.compareTo(Duration.ofSeconds(2)) < 0
                ? Duration.ofSeconds(2) : q;
    }

    /** Time kept for deciding and printing. */
    private Duration reserve() {
        Duration r = budget.share(0.03);
        return r.compareTo(Duration.ofMillis(500)) < 0 ? Duration.ofMillis(500) : r;
    }

    private void say(String line) {
        progress.println("fabricd preflight: " + line);
        progress.flush();
    }
}
