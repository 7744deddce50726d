package io.fabricd.diagnosis.checks;

import io.fabricd.model.finding.Finding;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** What the probe checks share. */
final class ProbeVerdicts {
    private ProbeVerdicts() {
    }

    /**
     * One finding per subject (the transports and sizes of a peer merge, so fabric_finding has one
     * series): the most severe, the first seen of equal ones.
     */
    static List<Finding> mostSevere(List<Finding> findings) {
        List<Finding> out = new ArrayList<>(findings);
        out.sort(Comparator.comparing(Finding::severity));
        Set<String> seen = new HashSet<>();
        out.removeIf(f -> !seen.add(f.subject().toString()));
        return out;
    }
}
