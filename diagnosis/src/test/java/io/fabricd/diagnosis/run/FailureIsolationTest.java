package io.fabricd.diagnosis.run;

import io.fabricd.diagnosis.Check;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.diagnosis.Hosts;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Severity;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.model.HostModel;
import io.fabricd.model.probe.ProbeResults;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A check that throws fails only itself, and its failure is reported as a finding. */
class FailureIsolationTest {

    private record Throwing(String id, RuntimeException thrown) implements Check {
        @Override
        public List<Finding> evaluate(Inputs in, DiagnosisConfig config) {
            throw thrown;
        }
    }

    @Test
    void aThrowingCheckIsReportedAndEveryOtherCheckStillRuns() {
        HostModel host = Hosts.model("host-b-roce");
        Report clean = Diagnosis.run(host, null, DiagnosisConfig.DEFAULT);
        assertThat(clean.findings()).isNotEmpty();

        List<Check> checks = new ArrayList<>(Diagnosis.CHECKS);
        checks.add(3, new Throwing("pfc_missing", new IllegalStateException("a bug in a check")));
        Report r = Diagnosis.run(checks, host, null, null, ProbeResults.NONE, null, DiagnosisConfig.DEFAULT);

        assertThat(r.findings()).containsAll(clean.findings());
        List<Finding> failed = r.findings().stream().filter(f -> !clean.findings().contains(f)).toList();
        assertThat(failed).singleElement().satisfies(f -> {
            assertThat(f.check()).isEqualTo("pfc_missing");
            assertThat(f.severity()).isEqualTo(Severity.INFO);
            assertThat(f.summary()).isEqualTo("check pfc_missing failed: java.lang.IllegalStateException: a bug in a check");
            assertThat(f.remediation()).contains("fabricd snapshot");
        });
    }
}
