package io.fabricd.gate;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.fabricd.preflight.Fabric;
import io.fabricd.preflight.FabricSuspect;
import io.fabricd.preflight.Hostlist;
import io.fabricd.preflight.LinkVerdict;
import io.fabricd.preflight.NodeVerdict;
import io.fabricd.preflight.Verdict;
import io.fabricd.preflight.Verdicts;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The output of {@code fabricd preflight}: a table for people, or JSON (docs/preflight.md), and the
 * one {@link Outcome} that its verdict, its lists and the exit code all come from.
 */
public final class GateReport {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /**
     * What the run comes to: PASS (exit 0) when no node is excluded and no link is bad; EXCLUDE (exit
     * 1) when a node is excluded or a link is bad, each named in {@code excluded} or {@code bad_links};
     * TOO_FEW_KEPT (exit 2) when fewer nodes are kept than the job needs (--min-nodes).
     */
    public enum Outcome {
        PASS(0, "pass"), EXCLUDE(1, "exclude"), TOO_FEW_KEPT(2, "exclude");

        private final int exitCode;
        private final String verdict;

        Outcome(int exitCode, String verdict) {
            this.exitCode = exitCode;
            this.verdict = verdict;
        }

        public int exitCode() {
            return exitCode;
        }

        /** The JSON's top-level verdict: pass, or exclude (nodes in {@code excluded}, links in {@code bad_links}). */
        public String verdict() {
            return verdict;
        }
    }

    /** The JSON report (docs/preflight.md, "Output"), in its fields' order. */
    record Doc(String verdict, @JsonProperty("exit_code") int exitCode, List<NodeVerdict> nodes, List<LinkVerdict> links,
                       String excluded, String unknown, @JsonProperty("bad_links") List<String> badLinks, int kept, Fabric fabric,
                       List<GatePhase> phases,
                       @JsonProperty("elapsed_seconds") double elapsedSeconds,
                       @JsonProperty("result_not_stored") @JsonInclude(JsonInclude.Include.NON_NULL) String resultNotStored) {
    }

    private final Verdicts v;
    private final Duration elapsed;
    private final List<GatePhase> phases;
    private final int minNodes;

    /**
     * @param phases   what each phase of the run did, in order
     * @param minNodes the fewest nodes the job can run on (--min-nodes)
     */
    public GateReport(Verdicts verdicts, Duration elapsed, List<GatePhase> phases, int minNodes) {
        this.v = verdicts;
        this.elapsed = elapsed;
        this.phases = List.copyOf(phases);
        this.minNodes = minNodes;
    }

    public Outcome outcome() {
        if (v.kept() < minNodes) {
            return Outcome.TOO_FEW_KEPT;
        }
        return v.allPass() ? Outcome.PASS : Outcome.EXCLUDE;
    }

    /** How many nodes the set has. */
    public int nodes() {
        return v.nodes().size();
    }

    /** How many of them the job may use. */
    public int kept() {
        return v.kept();
    }

    /** "pass" when every node and link passed, else "exclude". */
    public String verdict() {
        return outcome().verdict();
    }

    /** The bad links (verdict exclude), each as {@code a<->b}, in the set's order. */
    public List<String> badLinks() {
        return v.excludedLinks().stream().map(l -> l.a() + "<->" + l.b()).toList();
    }

    /** The excluded nodes as one Slurm hostlist ("" when none). */
    public String excluded() {
        return v.excluded().isEmpty() ? "" : Hostlist.compress(v.excluded());
    }

    /** The unknown nodes (not judged) as one Slurm hostlist ("" when none): among {@link #excluded()} unless --unknown pass. */
    public String unknown() {
        List<String> u = v.unknown();
        return u.isEmpty() ? "" : Hostlist.compress(u);
    }

    /**
     * One line per node the job must not use: its name, a tab, its verdict ({@code exclude}: judged
     * bad; {@code unknown}: not judged, e.g. its agent unreachable), a tab, its first reason as a
     * drain reason ({@link DrainReason}: one line of at most 200 characters, cut at a word), for scripts
     * that drain or cordon nodes one by one (deploy/slurm, deploy/kubernetes): they drain only what
     * was judged bad.
     */
    public String excludedLines() {
        Map<String, NodeVerdict> byName = new HashMap<>();
        for (NodeVerdict n : v.nodes()) {
            byName.putIfAbsent(n.node(), n);
        }
        StringBuilder b = new StringBuilder();
        for (String name : v.excluded()) {
            NodeVerdict n = byName.get(name);
            String why = n == null || n.reasons().isEmpty() ? "" : n.reasons().get(0);
            b.append(name).append('\t').append(n == null ? Verdict.EXCLUDE.id() : n.verdict().id()).append('\t')
                    .append(DrainReason.of(why)).append('\n');
        }
        return b.toString();
    }

    public void json(PrintWriter out) {
        json(out, outcome().exitCode(), null);
    }

    /**
     * The JSON, {@code exitCode} the command's: the outcome's, unless the result could not be stored
     * where --result-configmap asked ({@code notStored}: why, added as {@code result_not_stored}).
     */
    public void json(PrintWriter out, int exitCode, String notStored) {
        Outcome o = outcome();
        Doc doc = new Doc(o.verdict(), exitCode, v.nodes(), v.links(), excluded(), unknown(), badLinks(), v.kept(), v.fabric(), phases,
                Math.round(elapsed.toMillis() / 10.0) / 100.0, notStored);
        try {
            out.print(JSON.writeValueAsString(doc) + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        out.flush();
    }

    /** One row per node (its first reason; more reasons on lines of their own), the links that did not pass, a summary. */
    public void text(PrintWriter out) {
        int w = 4;
        for (NodeVerdict n : v.nodes()) {
            w = Math.max(w, Math.min(40, n.node().length()));
        }
        String row = "%-" + w + "s  %-7s  %s%n";
        out.printf(row, "node", "verdict", "reason");
        for (NodeVerdict n : v.nodes()) {
            rows(out, row, n.node(), n.verdict(), n.reasons());
        }
        List<LinkVerdict> shown = v.links().stream().filter(l -> l.verdict() != Verdict.PASS).toList();
        if (!shown.isEmpty()) {
            int lw = 4;
            for (LinkVerdict l : shown) {
                lw = Math.max(lw, Math.min(60, l.a().length() + l.b().length() + 3));
            }
            String lrow = "%-" + lw + "s  %-7s  %s%n";
            out.println();
            out.printf(lrow, "link", "verdict", "reason");
            for (LinkVerdict l : shown) {
                rows(out, lrow, l.a() + "<->" + l.b(), l.verdict(), l.reasons());
            }
        }
        fabric(out);
        int bad = v.excludedLinks().size();
        out.println();
        int n = v.nodes().size();
        String t = String.format(Locale.ROOT, "%.1f s", elapsed.toMillis() / 1000.0);
        Set<String> unjudged = new HashSet<>(v.unknown());
        long unknownOut = v.excluded().stream().filter(unjudged::contains).count();
        long unknownKept = unjudged.size() - unknownOut;
        String keptNote = unknownKept == 0 ? "" : "; " + unknownKept + " of them unknown, kept (--unknown pass)";
        if (v.allPass()) {
            out.printf(Locale.ROOT, "pass: %s kept, no link bad (%d measured)%s (%s)%n", n == 1 ? "the node" : "all " + n + " nodes",
                    v.links().size(), keptNote, t);
        } else if (v.excluded().isEmpty()) {
            out.printf(Locale.ROOT, "exclude: no node, but %d links are bad: see the link lines; %d of %d nodes kept%s (%s)%n", bad,
                    v.kept(), n, keptNote, t);
        } else {
            out.printf(Locale.ROOT, "exclude: %s (%d of %d nodes: %d excluded, %d unknown); %d kept%s%s (%s)%n", excluded(),
                    v.excluded().size(), n, v.excluded().size() - unknownOut, unknownOut, v.kept(), keptNote,
                    bad > 0 ? "; " + bad + " links bad" : "", t);
        }
        out.flush();
    }

    /** The parts of the fabric the bad links share, each with the pairs that led there; nothing when none is suspect. */
    private void fabric(PrintWriter out) {
        List<FabricSuspect> suspects = v.fabric().suspects();
        if (suspects.isEmpty()) {
            return;
        }
        int w = "fabric suspect".length();
        for (FabricSuspect f : suspects) {
            w = Math.max(w, Math.min(60, String.join(" or ", f.ids()).length()));
        }
        String row = "%-" + w + "s  %-11s  %s%n";
        out.println();
        out.printf(row, "fabric suspect", "bad pairs", "pairs that led there");
        for (FabricSuspect f : suspects) {
            out.printf(row, String.join(" or ", f.ids()), f.bad() + " of " + f.pairs(), Texts.names(f.badPairNames()));
        }
    }

    private static void rows(PrintWriter out, String row, String name, Verdict verdict, List<String> reasons) {
        out.printf(row, name, verdict.id(), reasons.isEmpty() ? "" : reasons.get(0));
        for (int i = 1; i < reasons.size(); i++) {
            out.printf(row, "", "", reasons.get(i));
        }
    }
}
