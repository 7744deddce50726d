package io.fabricd.diagnosis.run;

import io.fabricd.diagnosis.Check;
import io.fabricd.model.finding.Evidence;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.NotJudged;
import io.fabricd.model.finding.Severity;
import io.fabricd.model.finding.Subject;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The text report of {@code fabricd diagnose}: findings by severity, like findings together, info
 * counted in one line unless verbose, and what could not be judged: counted in one line unless
 * verbose, next to the info findings that say why and how to let the checks judge
 * ({@link Check#explainsNotJudged()}); verbose, a line per subject and detail, naming every check
 * it stopped (a NIC's config space read in part stops three checks with the same words).
 *
 * <p>Like findings are those of one check whose fixes are the same once each finding's own names
 * (its device, netdev, PCI address, GPU, peer) are read as placeholders: eight ports with the same
 * transport errors are one group with one fix ({@code rdma statistic show link <device>/1}), the
 * evidence they all share said once, and one line per port with what is its own.
 */
final class ReportText {
    /** Subject parts whose values are names a fix may spell out; numbers (port, priority) stay as written. */
    private static final List<String> NAMED_PARTS = List.of("device", "netdev", "pci", "gpu", "peer");

    private final Report report;
    private final boolean colour;
    private final boolean verbose;
    private final StringBuilder sb = new StringBuilder();

    private ReportText(Report report, boolean colour, boolean verbose) {
        this.report = report;
        this.colour = colour;
        this.verbose = verbose;
    }

    /** The report; ANSI colour when {@code colour}; every info finding too when {@code verbose}. */
    static String render(Report report, boolean colour, boolean verbose) {
        return new ReportText(report, colour, verbose).render();
    }

    /** One check's findings that share a fix; {@code fix} with placeholders where their names differ. */
    private record Group(String check, String fix, List<Finding> findings) {
    }

    /** A line of the verbose not-judged list: a subject left unjudged for one reason, in the same words, by one check or more. */
    private record Unjudged(Subject subject, NotJudged.Reason reason, String detail) {
    }

    private String render() {
        sb.append("fabricd diagnose: ").append(report.model().hostname()).append(" at ").append(report.model().collectedAt()).append('\n');
        if (report.findings().isEmpty()) {
            sb.append(!report.notJudged().isEmpty() ? "\nNo findings in what could be judged (see \"Not judged\" below).\n"
                    : report.checksWithoutHistory().isEmpty() ? "\nNo findings.\n" : "\nNo findings: nothing wrong that one collection can show.\n");
        }
        List<Finding> causes = verbose || report.notJudged().isEmpty() ? List.of() : report.findings().stream()
                .filter(f -> f.severity() == Severity.INFO && explainsNotJudged(f.check())).toList();
        for (Severity s : Severity.values()) {
            List<Finding> fs = report.findings().stream().filter(f -> f.severity() == s).toList();
            if (fs.isEmpty()) {
                continue;
            }
            if (s == Severity.INFO && !verbose) {
                folded(fs, causes);
                continue;
            }
            sb.append('\n').append(heading(s, s.id().toUpperCase(Locale.ROOT) + " (" + fs.size() + ")")).append('\n');
            groups(fs).forEach(this::group);
        }
        coverage(causes);
        return sb.toString();
    }

    /**
     * "INFO (12): 3 port_errors_rising, 8 transport_errors; `fabricd diagnose --verbose` shows them;
     * pcie_config_blind under "Not judged"".
     */
    private void folded(List<Finding> fs, List<Finding> causes) {
        List<String> parts = new ArrayList<>();
        List<String> counts = counts(fs.stream().filter(f -> !causes.contains(f)).map(Finding::check).toList());
        if (!counts.isEmpty()) {
            parts.add(String.join(", ", counts) + "; `fabricd diagnose --verbose` shows them");
        }
        if (!causes.isEmpty()) {
            parts.add(String.join(", ", causes.stream().map(Finding::check).distinct().toList()) + " under \"Not judged\"");
        }
        sb.append('\n').append(heading(Severity.INFO, "INFO (" + fs.size() + ")")).append(": ").append(String.join("; ", parts)).append('\n');
    }

    /** "3 port_errors_rising, 8 transport_errors": how often each check comes in {@code checks}, in the order they first come. */
    private static List<String> counts(List<String> checks) {
        Map<String, Integer> byCheck = new LinkedHashMap<>();
        checks.forEach(c -> byCheck.merge(c, 1, Integer::sum));
        List<String> counts = new ArrayList<>();
        byCheck.forEach((check, n) -> counts.add(n + " " + check));
        return counts;
    }

    private void group(Group g) {
        if (g.findings().size() == 1) {
            Finding f = g.findings().get(0);
            sb.append("  [").append(f.check()).append("] ").append(subject(f)).append(": ").append(f.summary()).append('\n');
            f.evidence().entries().forEach(e -> evidence("      ", e));
            sb.append("    fix: ").append(f.remediation()).append('\n');
            return;
        }
        sb.append("  [").append(g.check()).append("] ").append(g.findings().size()).append(" findings\n");
        List<Evidence.Entry> shared = new ArrayList<>(g.findings().get(0).evidence().entries());
        g.findings().forEach(f -> shared.retainAll(f.evidence().entries()));
        shared.forEach(e -> evidence("      ", e));
        for (Finding f : g.findings()) {
            sb.append("    ").append(subject(f)).append(": ").append(f.summary()).append('\n');
            f.evidence().entries().stream().filter(e -> !shared.contains(e)).forEach(e -> evidence("        ", e));
        }
        sb.append("    fix: ").append(g.fix()).append('\n');
    }

    private void evidence(String indent, Evidence.Entry e) {
        sb.append(indent).append(e.name()).append(": ").append(e.value()).append('\n');
    }

    private void coverage(List<Finding> causes) {
        List<String> skipped = report.checksWithoutHistory().stream().filter(id -> Diagnosis.CHECKS.stream()
                .anyMatch(c -> c.id().equals(id) && c.history() == Check.History.REQUIRED)).toList();
        List<String> partial = report.checksWithoutHistory().stream().filter(id -> !skipped.contains(id)).toList();
        if (!skipped.isEmpty()) {
            sb.append("\nNot run (they compare two collections; the running agent or --previous gives them one): ")
                    .append(String.join(", ", skipped)).append('\n');
        }
        if (!partial.isEmpty()) {
            sb.append("Judged on totals only, without rates: ").append(String.join(", ", partial)).append('\n');
        }
        if (!report.notJudged().isEmpty()) {
            sb.append("\nNot judged (").append(report.notJudged().size()).append(')');
            if (verbose) {
                sb.append(": no finding is built on what could not be read\n");
                unjudged().forEach((u, checks) -> sb.append("  [").append(String.join(", ", checks)).append("] ").append(subject(u.subject()))
                        .append(": ").append(u.reason().id()).append(": ").append(u.detail()).append('\n'));
            } else {
                foldedNotJudged(causes);
            }
        }
        long errors = report.model().collectors().stream().mapToLong(c -> c.errors().size()).sum();
        if (errors > 0) {
            sb.append("\n").append(errors).append(" paths could not be read (see --format json, collectors[].errors)\n");
        }
    }

    /**
     * "Not judged (38): blind: 14 pcie_acs_redirect, 8 pcie_max_payload; ...", then each finding that says why
     * with its fix.
     */
    private void foldedNotJudged(List<Finding> causes) {
        Map<NotJudged.Reason, List<String>> byReason = new LinkedHashMap<>();
        report.notJudged().forEach(n -> byReason.computeIfAbsent(n.reason(), r -> new ArrayList<>()).add(n.check()));
        List<String> reasons = new ArrayList<>();
        byReason.forEach((reason, checks) -> reasons.add(reason.id() + ": " + String.join(", ", counts(checks))));
        sb.append(": ").append(String.join("; ", reasons)).append("; no finding is built on them, `fabricd diagnose --verbose` lists them and why\n");
        for (Finding f : causes) {
            sb.append("  [").append(f.check()).append("] ").append(subject(f)).append(": ").append(f.summary()).append('\n');
            sb.append("    fix: ").append(f.remediation()).append('\n');
        }
    }

    /** The not-judged list with the entries that share a subject, a reason and a detail as one, in the order they first come. */
    private Map<Unjudged, List<String>> unjudged() {
        Map<Unjudged, List<String>> out = new LinkedHashMap<>();
        report.notJudged().forEach(n -> out.computeIfAbsent(new Unjudged(n.subject(), n.reason(), n.detail()), u -> new ArrayList<>())
                .add(n.check()));
        return out;
    }

    private static boolean explainsNotJudged(String check) {
        return Diagnosis.CHECKS.stream().anyMatch(c -> c.id().equals(check) && c.explainsNotJudged());
    }

    private String heading(Severity s, String text) {
        String code = s == Severity.CRITICAL ? "31" : s == Severity.WARNING ? "33" : "36";
        return colour ? "\u001b[1;" + code + "m" + text + "\u001b[0m" : text;
    }

    /** The findings of one severity as groups, in the order their first finding comes. */
    private static List<Group> groups(List<Finding> fs) {
        Map<List<String>, List<Finding>> byFix = new LinkedHashMap<>();
        for (Finding f : fs) {
            byFix.computeIfAbsent(List.of(f.check(), placeholders(f)), k -> new ArrayList<>()).add(f);
        }
        List<Group> out = new ArrayList<>();
        byFix.forEach((k, members) -> out.add(new Group(k.get(0), members.size() == 1 ? members.get(0).remediation() : k.get(1), members)));
        return out;
    }

    /** The finding's fix with its own names as {@code <device>}, {@code <netdev>}, ...: longer names first, whole words only. */
    static String placeholders(Finding f) {
        String fix = f.remediation() == null ? "" : f.remediation();
        List<Map.Entry<String, String>> names = f.subject().parts().entrySet().stream()
                .filter(e -> NAMED_PARTS.contains(e.getKey()) && e.getValue().length() > 1)
                .sorted(Comparator.comparingInt((Map.Entry<String, String> e) -> e.getValue().length()).reversed()).toList();
        for (Map.Entry<String, String> n : names) {
            fix = Pattern.compile("(?<![A-Za-z0-9_])" + Pattern.quote(n.getValue()) + "(?![A-Za-z0-9_])").matcher(fix)
                    .replaceAll(Matcher.quoteReplacement("<" + n.getKey() + ">"));
        }
        return fix;
    }

    private static String subject(Finding f) {
        return subject(f.subject());
    }

    private static String subject(Subject subject) {
        if (subject.isHost()) {
            return "host";
        }
        StringBuilder s = new StringBuilder();
        subject.parts().forEach((k, v) -> s.append(s.length() == 0 ? "" : " ").append(k).append('=').append(v));
        return s.toString();
    }
}
