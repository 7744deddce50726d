package io.fabricd.exporters;

import io.fabricd.model.finding.Finding;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code fabric_finding{check,severity,device,port,netdev,priority,gpu,pci,peer,direction} 1}: one series per open
 * finding of the latest collection (interfaces.md). Every subject label is always present, empty
 * when the finding's subject has no such part, so alert rules can group by any of them (direction:
 * the two directions of a slow link are two series).
 */
final class FindingFamilies {
    static final List<String> SUBJECT_LABELS = List.of("device", "port", "netdev", "priority", "gpu", "pci", "peer",
            "direction");

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

    static void declare(Families f) {
        f.gauge("fabric_finding", "One per open finding of the latest collection (fabricd diagnose; docs/checks.md): value 1.");
        f.gauge("fabric_finding_text", "The words of each open finding of fabric_finding, with the same labels and its summary and "
                + "the first step of its remediation: what alert descriptions print (a separate series, so a summary that "
                + "changes does not restart the alert).");
    }

    static void add(Families f, List<Finding> findings) {
        Set<List<String>> seen = new HashSet<>();
        for (Finding x : findings) {
            String[] kv = new String[4 + 2 * SUBJECT_LABELS.size()];
            kv[0] = "check";
            kv[1] = x.check();
            kv[2] = "severity";
            kv[3] = x.severity().id();
            int i = 4;
            Map<String, String> parts = x.subject().parts();
            for (String l : SUBJECT_LABELS) {
                kv[i++] = l;
                kv[i++] = parts.getOrDefault(l, "");
            }
            if (seen.add(List.of(kv))) {
                f.add("fabric_finding", 1, kv);
                String[] text = java.util.Arrays.copyOf(kv, kv.length + 4);
                text[kv.length] = "summary";
                text[kv.length + 1] = x.summary();
                text[kv.length + 2] = "remediation";
                text[kv.length + 3] = firstStep(x.remediation());
                f.add("fabric_finding_text", 1, text);
            }
        }
    }
}
