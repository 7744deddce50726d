package io.fabricd.diagnosis;

import io.fabricd.collectors.model.HostModel;
import io.fabricd.diagnosis.checks.CounterSaturated;
import io.fabricd.diagnosis.checks.GpuDirectOff;
import io.fabricd.diagnosis.checks.LinkDown;
import io.fabricd.diagnosis.checks.NumaMisaffinity;
import io.fabricd.diagnosis.checks.PcieDegraded;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Runs every check over a host model (and the previous one, for rates). */
public final class Diagnosis {
    /** The checks fabricd ships so far (issue 4 adds the rest of interfaces.md's ids). */
    public static final List<Check> CHECKS = List.of(new LinkDown(), new CounterSaturated(), new GpuDirectOff(),
            new NumaMisaffinity(), new PcieDegraded());

    private Diagnosis() {
    }

    public static Report run(HostModel current, HostModel previous) {
        List<Finding> findings = new ArrayList<>();
        List<String> noHistory = new ArrayList<>();
        for (Check c : CHECKS) {
            if (c.needsHistory() && previous == null) {
                noHistory.add(c.id());
                continue;
            }
            findings.addAll(c.evaluate(current, previous));
        }
        findings.sort(Comparator.comparing(Finding::severity).thenComparing(Finding::check)
                .thenComparing(f -> f.subject().toString()));
        return new Report(current, findings, noHistory);
    }
}
