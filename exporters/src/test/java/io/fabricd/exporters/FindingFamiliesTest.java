package io.fabricd.exporters;

import static io.fabricd.testing.PromText.s;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.collectors.CollectorConfig;
import io.fabricd.collectors.Fixtures;
import io.fabricd.collectors.run.HostCollection;
import io.fabricd.diagnosis.run.Diagnosis;
import io.fabricd.model.HostModel;
import io.fabricd.model.finding.Evidence;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Severity;
import io.fabricd.model.finding.Subject;
import io.fabricd.testing.PromText;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FindingFamiliesTest {

    static Map<String, Double> metrics(HostModel m, List<Finding> findings) {
        return PromText.parse(new String(Exposition.render(FabricMetrics.build(m, false, findings), null).body(),
                StandardCharsets.UTF_8));
    }

    @Test
    void oneSeriesPerOpenFindingWithEverySubjectLabel() {
        HostModel m = HostCollection.standard(CollectorConfig.DEFAULT).collect(Fixtures.open("host-e-roce-variants"));
        List<Finding> findings = Diagnosis.run(m, null).findings();
        Map<String, Double> v = metrics(m, findings);
        assertThat(v).containsEntry(s("fabric_finding", "check", "pfc_missing", "severity", "critical", "device", "mlx5_0", "port", "1",
                "netdev", "ens1f0np0", "priority", "3", "gpu", "", "pci", "", "peer", "", "direction", ""), 1.0);
        assertThat(v).containsEntry(s("fabric_finding", "check", "pfc_missing", "severity", "info", "device", "rxe0", "port", "1",
                "netdev", "veth0", "priority", "", "gpu", "", "pci", "", "peer", "", "direction", ""), 1.0);
        assertThat(v.keySet()).filteredOn(k -> k.startsWith("fabric_finding{")).hasSize(findings.size());
        // a repeated finding (same check, severity and subject) is still one series
        List<Finding> twice = new ArrayList<>(findings);
        twice.add(findings.get(0));
        assertThat(metrics(m, twice).keySet()).filteredOn(k -> k.startsWith("fabric_finding{")).hasSize(findings.size());
    }

    @Test
    void bothDirectionsOfASlowLinkAreTwoSeries() {
        HostModel m = HostCollection.standard(CollectorConfig.DEFAULT).collect(Fixtures.open("host-a-ib"));
        Subject link = Subject.peer("node-7:9500", "mlx5_0");
        List<Finding> slow = List.of(
                new Finding("bandwidth_low", Severity.WARNING, link.withDirection("tx"), "slow out", Evidence.NONE, "Compare."),
                new Finding("bandwidth_low", Severity.WARNING, link.withDirection("rx"), "slow in", Evidence.NONE, "Compare."));
        Map<String, Double> v = metrics(m, slow);
        for (String direction : List.of("tx", "rx")) {
            assertThat(v).containsEntry(s("fabric_finding", "check", "bandwidth_low", "severity", "warning", "device", "mlx5_0", "port", "",
                    "netdev", "", "priority", "", "gpu", "", "pci", "", "peer", "node-7:9500", "direction", direction), 1.0);
        }
        assertThat(v.keySet()).filteredOn(k -> k.startsWith("fabric_finding_text{")).hasSize(2);
    }

    @Test
    void noFindingNoFamily() {
        HostModel m = HostCollection.standard(CollectorConfig.DEFAULT).collect(Fixtures.open("host-a-ib"));
        assertThat(metrics(m, List.of()).keySet()).noneMatch(k -> k.startsWith("fabric_finding"));
    }
}
