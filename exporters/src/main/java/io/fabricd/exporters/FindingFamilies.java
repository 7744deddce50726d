package io.fabricd.exporters;

import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.NotJudged;
import io.fabricd.model.finding.Subject;
import io.fabricd.model.metrics.FindingMetrics;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * {@code fabric_finding{check,severity,device,port,netdev,priority,gpu,pci,peer,direction} 1}: one series per open
 * finding of the latest collection (interfaces.md). Every subject label is always present, empty
 * when the finding's subject has no such part, so alert rules can group by any of them (direction:
 * the two directions of a slow link are two series). {@code fabric_check_not_judged} carries the
 * subjects the checks could not judge, with the same subject labels.
 */
final class FindingFamilies {
    static final List<String> SUBJECT_LABELS = Subject.PARTS;

    private FindingFamilies() {
    }

    /** The remediation's first sentence: what a pager's line can hold (the whole text is in the findings JSON). */
    static String firstStep(String remediation) {
        if (remediation == null) {
            return "";
        }
        String r = remediation.strip();
        int inCode = 0;
        for (int i = 0; i < r.length() - 1; i++) {
            char c = r.charAt(i);
            if (c == '`') {
                inCode ^= 1;
            } else if (inCode == 0 && c == '.' && r.charAt(i + 1) == ' ' && i > 20) {
                return r.substring(0, i + 1);
            }
        }
        return r;
    }


    /** fabric_finding's label names: check, severity and the subject's; fabric_finding_text's add summary and remediation. */
    private static final List<String> NAMES = Stream.concat(Stream.of("check", "severity"), SUBJECT_LABELS.stream()).toList();
    private static final List<String> TEXT_NAMES = Stream.concat(NAMES.stream(), Stream.of("summary", "remediation")).toList();

    private static final List<String> NOT_JUDGED_NAMES = Stream.concat(Stream.of("check", "reason"), SUBJECT_LABELS.stream()).toList();

    static void add(Families f, List<Finding> findings, List<NotJudged> notJudged) {
        add(f, findings);
        Set<List<String>> seen = new HashSet<>();
        for (NotJudged n : notJudged) {
            List<String> values = values(n.check(), n.reason().id(), n.subject());
            if (seen.add(values)) {
                f.add(FindingMetrics.NOT_JUDGED, 1, NOT_JUDGED_NAMES, values);
            }
        }
    }

    private static void add(Families f, List<Finding> findings) {
        Set<List<String>> seen = new HashSet<>();
        for (Finding x : findings) {
            List<String> values = values(x.check(), x.severity().id(), x.subject());
            if (seen.add(values)) {
                f.add(FindingMetrics.FINDING, 1, NAMES, values);
                List<String> text = new ArrayList<>(values);
                text.add(x.summary());
                text.add(firstStep(x.remediation()));
                f.add(FindingMetrics.FINDING_TEXT, 1, TEXT_NAMES, text);
            }
        }
    }

    /** Two labels, then every subject label: empty where the subject has no such part. */
    private static List<String> values(String first, String second, Subject subject) {
        List<String> values = new ArrayList<>(List.of(first, second));
        Map<String, String> parts = subject.parts();
        SUBJECT_LABELS.forEach(l -> values.add(parts.getOrDefault(l, "")));
        return values;
    }
}
