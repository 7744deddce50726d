package io.fabricd.agent.cli;

import io.fabricd.agent.config.ConfigLoader;
import io.fabricd.agent.preflight.ExcludeFile;
import io.fabricd.agent.preflight.GateReport;
import io.fabricd.agent.preflight.GateRun;
import io.fabricd.agent.preflight.NodeSet;
import io.fabricd.agent.preflight.PreflightBandwidth;
import io.fabricd.agent.preflight.ResultConfigMap;
import io.fabricd.diagnosis.Diagnosis;
import io.fabricd.model.finding.Severity;
import io.fabricd.preflight.Policy;
import io.fabricd.probes.ProbeKey;
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
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code fabricd preflight --nodes EXPR}: which nodes and links of a job's set may the job use (docs/preflight.md). */
@Command(name = "preflight", mixinStandardHelpOptions = true,
        description = "Gate a job's node set before it starts: ask every node's agent for its findings and probe results, "
                + "probe and test the bandwidth over a ring of the set, and decide per node and link: pass, exclude or unknown "
                + "(docs/preflight.md).",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:every node and link passed", "1:some excluded (the reasons on stdout, --exclude-file)",
            "2:bad input, or the gate could not run (fewer than --min-nodes kept)"})
public final class PreflightCommand implements Callable<Integer> {
    /**
     * The longest bandwidth test asked for: an agent answers when its test is over, and closes a
     * connection it has not written to for http.idle_timeout (30 s by default); the test's setup
     * (queue pairs, the peer's exchanges: a few seconds) comes on top.
     */
    static final Duration MAX_BANDWIDTH_DURATION = Duration.ofMillis(PreflightBandwidth.MAX_DURATION_MS);

    enum Format { text, json }

    enum Bandwidth { ring, none }

    enum Unknown { exclude, pass }

    @Option(names = "--nodes", required = true, paramLabel = "EXPR",
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

    @Option(names = "--latency-factor", paramLabel = "F", defaultValue = "3.0",
            description = "A link's median RTT above this x the set's median "
            + "(and 50 us more) is slow, and so is a node whose median or 90th percentile hold is above this x the set's "
            + "and --host-floor (default: ${DEFAULT-VALUE}).")
    double latencyFactor;

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
            + "excluded nodes, printed, not run (the preflight Job, docs/preflight.md).")
    String resultConfigMap;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        if (resultConfigMap == null) {
            return gate().outcome().exitCode();
        }
        GateReport report;
        try {
            report = gate();
        } catch (IllegalArgumentException e) {
            try {
                publish(ResultConfigMap.error(e.getMessage()));
            } catch (IllegalStateException notStored) {
                spec.commandLine().getErr().println("fabricd preflight: the error below is not stored: " + notStored.getMessage());
            }
            throw e;
        }
        StringWriter json = new StringWriter();
        report.json(new PrintWriter(json));
        int code = report.outcome().exitCode();
        Map<String, String> result = ResultConfigMap.data(code, report, json.toString());
        PrintWriter err = spec.commandLine().getErr();
        if (!result.get("commands").isEmpty()) {
            err.print("fabricd preflight: to keep new pods off the excluded nodes (not run here; also in ConfigMap " + resultConfigMap + "):\n"
                    + result.get("commands"));
        }
        try {
            publish(result);
        } catch (IllegalStateException e) {
            err.println("fabricd preflight: the verdict (exit " + code + ", above) is not stored: " + e.getMessage());
            err.flush();
            return 2;
        }
        err.flush();
        return code;
    }

    private void publish(Map<String, String> data) {
        ResultConfigMap.publish(null, resultConfigMap, data);
    }

    /** Runs the gate, prints and writes its output; the report's outcome is the exit code. */
    private GateReport gate() throws IOException {
        Duration budget = duration("--timeout", timeout, Duration.ofSeconds(1), Duration.ofHours(1));
        Duration bwTime = duration("--bandwidth-duration", bandwidthDuration, Duration.ofMillis(100), MAX_BANDWIDTH_DURATION);
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
        List<NodeSet.Node> set = NodeSet.parse(nodes, port);
        if (minNodes > set.size()) {
            throw new IllegalArgumentException("--min-nodes " + minNodes + " is more than the " + set.size() + " nodes of --nodes");
        }
        ProbeKey key = ProbeKey.resolve(keyFile);
        if (key == null) {
            throw new IllegalArgumentException("no probe key: give --key-file FILE or set " + ProbeKey.ENV + " (the agents' key)");
        }
        PrintWriter err = spec.commandLine().getErr();
        GateRun.Result r = new GateRun(set, new GateRun.Settings(key, tls, probeRound, bandwidth == Bandwidth.ring, bwTime,
                bandwidthSize, policy, budget), err).run();
        GateReport report = new GateReport(r.verdicts(), r.elapsed(), r.phases(), minNodes);
        PrintWriter out = spec.commandLine().getOut();
        if (format == Format.json) {
            report.json(out);
        } else {
            report.text(out);
        }
        if (excludeFile != null) {
            ExcludeFile.write(excludeFile, report.excluded());
        }
        if (excludeList != null) {
            ExcludeFile.write("--exclude-list", excludeList, report.excludedLines());
        }
        if (report.outcome() == GateReport.Outcome.TOO_FEW_KEPT) {
            err.printf(Locale.ROOT, "fabricd preflight: only %d of %d nodes kept, fewer than --min-nodes %d: the job cannot run on this "
                    + "set; fix or replace the excluded nodes (reasons above) and run again%n", r.verdicts().kept(), set.size(), minNodes);
            err.flush();
        }
        return report;
    }

    private Policy policy() {
        Duration floor = duration("--host-floor", hostFloor, Duration.ofNanos(100_000), Duration.ofSeconds(10));
        Set<Severity> severities = switch (excludeSeverity.toLowerCase(Locale.ROOT)) {
            case "critical" -> Policy.atLeast(Severity.CRITICAL);
            case "warning" -> Policy.atLeast(Severity.WARNING);
            default -> throw new IllegalArgumentException("--exclude-severity " + excludeSeverity + ": critical or warning");
        };
        try {
            return new Policy(severities, checks("--exclude-checks", excludeChecks), checks("--ignore-checks", ignoreChecks), lossFactor,
                    latencyFactor, floor.toNanos() / 1e9, bandwidthRatio, minSamples, unknown == Unknown.pass, minNodes);
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
