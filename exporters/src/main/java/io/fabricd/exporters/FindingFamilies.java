package io.fabricd.exporters;

import io.fabricd.diagnosis.Finding;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code fabric_finding{check,severity,device,port,netdev,priority,gpu,pci,peer} 1}: one series per open
 * finding of the latest collection (interfaces.md). Every subject label is always present, empty
 * when the finding's subject has no such part, so alert rules can group by any of them.
 */
final class FindingFamilies {
    static final List<String> SUBJECT_LABELS = List.of("device", "port", "netdev", "priority", "gpu", "pci", "peer");

    private FindingFamilies() {
    }

    static void declare(Families f) {
        f.gauge("fabric_finding", "One per open finding of the latest collection (fabricd diagnose; docs/checks.md): value 1.");
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
            for (String l : SUBJECT_LABELS) {
                Object v = x.subject().get(l);
                kv[i++] = l;
                kv[i++] = v == null ? "" : v.toString();
            }
            if (seen.add(List.of(kv))) {
                f.add("fabric_finding", 1, kv);
            }
        }
    }
}
