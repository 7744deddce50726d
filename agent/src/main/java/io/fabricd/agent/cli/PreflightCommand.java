package io.fabricd.agent.cli;

import io.fabricd.agent.config.ConfigLoader;
import io.fabricd.agent.preflight.PreflightBandwidth;
import io.fabricd.diagnosis.run.Diagnosis;
import io.fabricd.gate.ExcludeFile;
import io.fabricd.gate.GateReport;
import io.fabricd.gate.GateRun;
import io.fabricd.gate.NodeSet;
import io.fabricd.gate.ResultConfigMap;
import io.fabricd.model.finding.Severity;
import io.fabricd.model.topology.Topology;
import io.fabricd.preflight.AbsoluteBounds;
import io.fabricd.preflight.Policy;
import io.fabricd.probes.ProbeKey;
import io.fabricd.topology.TopologyFiles;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code fabricd preflight --nodes EXPR}: which nodes and links of a job's set may the job use (docs/preflight.md). */
@Command(name = "preflight", mixinStandardHelpOptions = true,
        description = "Gate a job's node set before it starts: ask every node's agent for its findings and probe results, "
                + "probe and test the bandwidth over a ring of the set, and decide per node and link: pass, exclude or unknown "
                + "(docs/preflight.md).",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:every node and link passed", "1:some excluded (the reasons on stdout, --exclude-file)",
            "2:bad input, the gate could not run (fewer than --min-nodes kept), or its result not stored (--result-configmap)"})
public final class PreflightCommand implements Callable<Integer> {
    enum Format { text, json }

    enum Bandwidth { ring, none }

    enum Unknown { exclude, pass }

    @Option(names = "--nodes", paramLabel = "EXPR",
            description = "The node set: a Slurm hostlist (gpu[001-064,070]), @FILE or a file with one name per line (# comments); "
                    + "an entry NAME=HOST:PORT reaches that node's agent at another address.")
    String nodes;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "9530",
            description = "The agents' HTTP port (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--key-file", paramLabel = "FILE",
            description = "The fabric's probe key (default: the environment variable " + ProbeKey.ENV + ").")
    Path keyFile;

    @Option(names = "--tls", description = "Talk to the agents over HTTPS.")
    boolean tls;

    @Option(names = "--bandwidth", paramLabel = "ring|none", defaultValue = "ring",
            description = "ring: test every adjacent pair of a ring both ways; none "
            + "(default: ${DEFAULT-VALUE}).")
    Bandwidth bandwidth;

    @Option(names = "--bandwidth-duration", paramLabel = "TIME", defaultValue = "2s", description = "How long each bandwidth test writes, "
            + "100ms to 20s: the agents' http.idle_timeout must exceed it and the test's setup (default: ${DEFAULT-VALUE}).")
    String bandwidthDuration;

    @Option(names = "--bandwidth-size", defaultValue = "65536", paramLabel = "BYTES",
            description = "Bytes per RDMA WRITE of the bandwidth tests (default: ${DEFAULT-VALUE}).")
    int bandwidthSize;

    @Option(names = "--probe-round", negatable = true, defaultValue = "true",
            description = "Ask every agent for an on-demand probe round to its ring neighbours, and the suspects for a round with "
                    + "known-good nodes (default: on; --no-probe-round judges the agents' recent probes only).")
    boolean probeRound;

    @Option(names = "--unknown", paramLabel = "exclude|pass", defaultValue = "exclude",
            description = "What a node the gate cannot judge is: exclude or pass "
            + "(default: ${DEFAULT-VALUE}).")
    Unknown unknown;

    @Option(names = "--topology", paramLabel = "FILE",
            description = "Where the set's nodes sit: Slurm's topology.conf or a plain topology file (docs/topology.md). Nodes it "
                    + "does not place are placed by their agents' own topology; with neither, no switch is named.")
    Path topology;

    @Option(names = "--on-suspect-switch", paramLabel = "exclude|keep", defaultValue = "exclude",
            description = "What a node behind a leaf switch the set's bad links share is: exclude (every flow of it crosses that "
                    + "switch) or keep (the switch and its bad links named, the node judged on the rest) (default: ${DEFAULT-VALUE}).")
    String onSuspectSwitch;

    @Option(names = "--exclude-severity", paramLabel = "critical|warning", defaultValue = "critical",
            description = "Findings at this severity or above exclude "
            + "their node: critical or warning (default: ${DEFAULT-VALUE}).")
    String excludeSeverity;

    @Option(names = "--exclude-checks", split = ",", paramLabel = "CHECK", description = "Only findings of these checks exclude "
            + "(default: every check).")
    List<String> excludeChecks;

    @Option(names = "--ignore-checks", split = ",", paramLabel = "CHECK", description = "Findings of these checks never exclude.")
    List<String> ignoreChecks;

    @Option(names = "--loss-factor", paramLabel = "F", defaultValue = "3.0",
            description = "A link's probe loss above this x the set's median (and "
            + "above 1 %%) is bad (default: ${DEFAULT-VALUE}).")
    double lossFactor;

    @Option(names = "--p50-bound", split = ",", paramLabel = "TRANSPORT=TIME",
            description = "A link whose median round trip over TRANSPORT (udp, verbs) is above TIME is slow, whatever the set's "
                    + "median (default: udp=2ms, verbs=5ms; docs/preflight.md, \"Absolute bounds\").")
    List<String> p50Bounds;

    @Option(names = "--latency-factor", paramLabel = "F", defaultValue = "3.0",
            description = "A link's median RTT above this x the set's median "
            + "(and 50 us more) is slow (default: ${DEFAULT-VALUE}).")
    double latencyFactor;

    @Option(names = "--host-factor", paramLabel = "F", defaultValue = "10.0",
            description = "A node whose responder's median or 90th percentile hold is above this x the set's of the same "
            + "and --host-floor is a slow host (default: ${DEFAULT-VALUE}).")
    double hostFactor;

    @Option(names = "--host-floor", paramLabel = "TIME", defaultValue = "1ms",
            description = "A node whose responder holds the probes it answers this long or less (their median and 90th "
            + "percentile) is never a slow host, 100us to 10s (default: ${DEFAULT-VALUE}).")
    String hostFloor;

    @Option(names = "--bandwidth-ratio", paramLabel = "R", defaultValue = "0.8",
            description = "A link below this share of its ceiling is bad "
            + "(default: ${DEFAULT-VALUE}).")
    double bandwidthRatio;

    @Option(names = "--min-samples", paramLabel = "N", defaultValue = "20",
            description = "Probes a link needs to be judged (default: ${DEFAULT-VALUE}).")
    int minSamples;

    @Option(names = "--min-nodes", paramLabel = "N", defaultValue = "1",
            description = "Fewest nodes the job can run on: fewer kept is exit 2 "
            + "(default: ${DEFAULT-VALUE}).")
    int minNodes;

    @Option(names = "--timeout", paramLabel = "TIME", defaultValue = "60s",
            description = "The whole run's time budget (default: ${DEFAULT-VALUE}).")
    String timeout;

    @Option(names = "--format", paramLabel = "text|json", defaultValue = "text",
            description = "text or json (default: ${DEFAULT-VALUE}).")
    Format format;

    @Option(names = "--exclude-file", paramLabel = "FILE", description = "Write the excluded nodes there as one Slurm hostlist "
            + "(empty when none), atomically.")
    Path excludeFile;

    @Option(names = "--exclude-list", paramLabel = "FILE", description = "Write the excluded nodes there one per line: the name, a "
            + "tab, the verdict (exclude, or unknown: not judged), a tab, the first reason (for scripts that drain or cordon node by "
            + "node), atomically.")
    Path excludeList;

    @Option(names = "--result-configmap", paramLabel = "NAME", description = "Also store the result in this Kubernetes ConfigMap of the "
            + "pod's namespace, replaced whole: exit_code, excluded, excluded.tsv, verdict.json and the cordon/taint commands for the "
            + "excluded nodes, printed, not run, and the run's pod and times; a record of the run replaces it before the gate starts "
            + "(the preflight Job, docs/preflight.md).")
    String resultConfigMap;

    @Option(names = "--check", description = "Check the options and the probe key (its file's rule), say so and exit, asking no agent: "
            + "0 when the gate could run with them, 2 with the problem. --nodes may be left out.")
    boolean check;

    @Spec
    CommandSpec spec;

    /** What the gate runs with, every option checked. */
    private record Input(List<NodeSet.Node> set, GateRun.Settings settings, Topology topology) {
    }

    @Override
    public Integer call() throws IOException {
        if (nodes == null && !check) {
            throw new ParameterException(spec.commandLine(), "Missing required option: '--nodes=EXPR'");
        }
        if (resultConfigMap != null) {
            ResultConfigMap.checkName(resultConfigMap);
        }
        if (check) {
            return checked(input());
        }
        if (resultConfigMap == null) {
            GateReport report = gate(input());
            print(report, report.outcome().exitCode(), null);
            return report.outcome().exitCode();
        }
        return gateStored(ResultConfigMap.Run.now());
    }

    /** --check: the input as the gate would take it, said on stdout; nothing is asked. */
    private int checked(Input in) {
        PrintWriter out = spec.commandLine().getOut();
        out.println("fabricd preflight: the options and the probe key (" + (keyFile != null ? keyFile.toString() : ProbeKey.ENV)
                + ") are usable" + (in.set().isEmpty() ? "" : ", for " + in.set().size() + (in.set().size() == 1 ? " node" : " nodes"))
                + (topology == null ? "" : "; " + topology + placed(in)) + "; no agent was asked");
        out.flush();
        return 0;
    }

    /**
     * " places 8 nodes under 3 switches", or with a set, how many of the set's nodes it places and
     * which it does not: " places 2 of the set's 4 nodes (8 nodes under 3 switches in all); not placed:
     * gpu05, gpu06: check the names".
     */
    private static String placed(Input in) {
        String all = in.topology().placements().size() + " nodes under " + in.topology().switches().size() + " switches";
        if (in.set().isEmpty()) {
            return " places " + all;
        }
        List<String> unplaced = in.set().stream().map(NodeSet.Node::name).filter(n -> in.topology().placement(n).isEmpty()).toList();
        int shown = 5;
        return " places " + (in.set().size() - unplaced.size()) + " of the set's " + in.set().size() + " nodes (" + all + " in all)"
                + (unplaced.isEmpty() ? "" : "; not placed: " + String.join(", ", unplaced.subList(0, Math.min(shown, unplaced.size())))
                + (unplaced.size() > shown ? " and " + (unplaced.size() - shown) + " more" : "") + ": check the names");
    }

    /**
     * The gate with --result-configmap: bad input said first, then stored as an error; a running
     * record of this run stored before the gate starts (a run that cannot store it does not start);
     * the result stored before anything is printed, so that the exit code printed in the JSON is the
     * command's, {@link ResultConfigMap#NOT_STORED} when the result could not be stored.
     */
    private int gateStored(ResultConfigMap.Run run) throws IOException {
        PrintWriter err = spec.commandLine().getErr();
        GateReport report;
        try {
            Input in = input();
            try {
                ResultConfigMap.publish(null, resultConfigMap, ResultConfigMap.running(run));
            } catch (IllegalStateException e) {
                err.println("fabricd preflight: the result cannot be stored, so the gate does not run: " + e.getMessage());
                err.flush();
                return ResultConfigMap.NOT_STORED;
            }
            report = gate(in);
        } catch (IllegalArgumentException | IOException e) {
            return failed(run, ExecutionErrors.message(e));
        }
        StringWriter json = new StringWriter();
        report.json(new PrintWriter(json));
        int code = report.outcome().exitCode();
        Map<String, String> result = ResultConfigMap.data(run, code, report, json.toString());
        if (!result.get("commands").isEmpty()) {
            err.print("fabricd preflight: to keep new pods off the excluded nodes (not run here; also in ConfigMap " + resultConfigMap + "):\n"
                    + result.get("commands"));
        }
        String notStored = null;
        try {
            ResultConfigMap.publish(null, resultConfigMap, result);
        } catch (IllegalStateException e) {
            notStored = e.getMessage();
        }
        int exit = notStored == null ? code : ResultConfigMap.NOT_STORED;
        print(report, exit, notStored);
        if (notStored != null) {
            err.println("fabricd preflight: the verdict (exit " + code + " on its own) is not stored, exit " + exit + ": " + notStored);
        }
        err.flush();
        return exit;
    }

    /** Bad input (or output that cannot be written): said first, as every command says it, then stored as the run's error. */
    private int failed(ResultConfigMap.Run run, String message) {
        PrintWriter err = spec.commandLine().getErr();
        err.println("fabricd: " + message);
        try {
            ResultConfigMap.publish(null, resultConfigMap, ResultConfigMap.error(run, message));
        } catch (IllegalStateException notStored) {
            err.println("fabricd preflight: the error above is not stored: " + notStored.getMessage());
        }
        err.flush();
        return ExecutionErrors.USAGE;
    }

    /** Every option checked, the node set (empty with --check and no --nodes) and the key read. */
    private Input input() throws IOException {
        Duration budget = duration("--timeout", timeout, Duration.ofSeconds(1), Duration.ofHours(1));
        Duration bwTime = duration("--bandwidth-duration", bandwidthDuration, Duration.ofMillis(100),
                Duration.ofMillis(PreflightBandwidth.MAX_DURATION_MS)); // the longest an agent takes, its answer within http.idle_timeout
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("--port " + port + " is not a port (1-65535)");
        }
        if (bandwidthSize < 1 || bandwidthSize > 64 << 20) {
            throw new IllegalArgumentException("--bandwidth-size " + bandwidthSize + " outside 1..67108864");
        }
        if (minSamples < 1 || minSamples > 1000) {
            throw new IllegalArgumentException("--min-samples " + minSamples + " outside 1..1000 (an on-demand round sends at most 1000)");
        }
        Policy policy = policy();
        List<NodeSet.Node> set = nodes == null ? List.of() : NodeSet.parse(nodes, port);
        if (nodes != null && minNodes > set.size()) {
            throw new IllegalArgumentException("--min-nodes " + minNodes + " is more than the " + set.size() + " nodes of --nodes");
        }
        ProbeKey key = ProbeKey.resolve(keyFile);
        if (key == null) {
            throw new IllegalArgumentException("no probe key: give --key-file FILE or set " + ProbeKey.ENV + " (the agents' key)");
        }
        Topology placed = topology == null ? Topology.EMPTY : TopologyFiles.read(topology, "--topology"); // its errors: "FILE:LINE: ..."
        return new Input(set, new GateRun.Settings(key, tls, probeRound, bandwidth == Bandwidth.ring, bwTime, bandwidthSize, policy, budget),
                placed);
    }

    /** Runs the gate and writes the exclude files; the report's outcome is the gate's exit code. */
    private GateReport gate(Input in) throws IOException {
        PrintWriter err = spec.commandLine().getErr();
        GateRun.Result r = new GateRun(in.set(), in.settings(), in.topology(), err).run();
        GateReport report = new GateReport(r.verdicts(), r.elapsed(), r.phases(), minNodes);
        if (excludeFile != null) {
            ExcludeFile.write(excludeFile, report.excluded());
        }
        if (excludeList != null) {
            ExcludeFile.write("--exclude-list", excludeList, report.excludedLines());
        }
        return report;
    }

    /**
     * The report on stdout as text or JSON, {@code exitCode} the command's and {@code notStored} why the
     * result was not stored (or null); then, when too few nodes are kept, why on stderr.
     */
    private void print(GateReport report, int exitCode, String notStored) {
        PrintWriter out = spec.commandLine().getOut();
        if (format == Format.json) {
            report.json(out, exitCode, notStored);
        } else {
            report.text(out);
        }
        if (report.outcome() == GateReport.Outcome.TOO_FEW_KEPT) {
            PrintWriter err = spec.commandLine().getErr();
            err.printf(Locale.ROOT, "fabricd preflight: only %d of %d nodes kept, fewer than --min-nodes %d: the job cannot run on this "
                    + "set; fix or replace the excluded nodes (reasons above) and run again%n", report.kept(), report.nodes(), minNodes);
            err.flush();
        }
    }

    /** The absolute bounds, each --p50-bound TRANSPORT=TIME replacing that transport's default. */
    private AbsoluteBounds bounds() {
        if (p50Bounds == null || p50Bounds.isEmpty()) {
            return AbsoluteBounds.DEFAULTS;
        }
        Map<String, Double> p50 = new TreeMap<>(AbsoluteBounds.DEFAULTS.maxP50Seconds());
        for (String b : p50Bounds) {
            String[] kv = b.split("=", 2);
            String transport = kv[0].strip();
            if (kv.length != 2 || !AbsoluteBounds.DEFAULTS.maxP50Seconds().containsKey(transport)) {
                throw new IllegalArgumentException("--p50-bound " + b + ": TRANSPORT=TIME, TRANSPORT udp or verbs (e.g. verbs=20ms)");
            }
            p50.put(transport, duration("--p50-bound " + transport, kv[1].strip(), Duration.ofNanos(1000), Duration.ofSeconds(10)).toNanos()
                    / 1e9);
        }
        return new AbsoluteBounds(AbsoluteBounds.DEFAULTS.maxLossRatio(), p50);
    }

    private Policy policy() {
        Duration floor = duration("--host-floor", hostFloor, Duration.ofNanos(100_000), Duration.ofSeconds(10));
        Set<Severity> severities = switch (excludeSeverity.toLowerCase(Locale.ROOT)) {
            case "critical" -> Policy.atLeast(Severity.CRITICAL);
            case "warning" -> Policy.atLeast(Severity.WARNING);
            default -> throw new IllegalArgumentException("--exclude-severity " + excludeSeverity + ": critical or warning");
        };
        Policy.SuspectSwitch suspect = switch (onSuspectSwitch.toLowerCase(Locale.ROOT)) {
            case "exclude" -> Policy.SuspectSwitch.EXCLUDE;
            case "keep" -> Policy.SuspectSwitch.KEEP;
            default -> throw new IllegalArgumentException("--on-suspect-switch " + onSuspectSwitch + ": exclude or keep");
        };
        try {
            return new Policy(severities, checks("--exclude-checks", excludeChecks), checks("--ignore-checks", ignoreChecks), lossFactor,
                    latencyFactor, floor.toNanos() / 1e9, hostFactor, bandwidthRatio, minSamples, unknown == Unknown.pass, minNodes,
                    bounds(), suspect);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("preflight policy: " + e.getMessage());
        }
    }

    /** The named checks, each one diagnose knows (a typo would silently exclude or ignore nothing). */
    private static Set<String> checks(String option, List<String> names) {
        Set<String> out = new LinkedHashSet<>();
        if (names == null) {
            return out;
        }
        List<String> known = Diagnosis.checkIds();
        for (String n : names) {
            String c = n.strip();
            if (c.isEmpty()) {
                continue;
            }
            if (!known.contains(c)) {
                throw new IllegalArgumentException(option + ": no check named '" + c + "' (the checks: " + String.join(", ", known) + ")");
            }
            out.add(c);
        }
        return out;
    }

    private static Duration duration(String option, String text, Duration least, Duration most) {
        Duration d;
        try {
            d = ConfigLoader.parseDuration(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + ": " + e.getMessage());
        }
        if (d.compareTo(least) < 0 || d.compareTo(most) > 0) {
            String lo = least.toMillis() > 0 ? least.toMillis() + " ms" : least.toNanos() / 1000 + " us";
            throw new IllegalArgumentException(option + " " + text + " outside " + lo + " .. " + most.toSeconds() + " s"
                    + (option.equals("--bandwidth-duration") ? " (an agent closes a connection idle for its http.idle_timeout, 30 s by"
                    + " default: the test and its setup must end before)" : ""));
        }
        return d;
    }
}
