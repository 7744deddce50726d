package io.fabricd.agent.cli;

import io.fabricd.agent.config.AgentConfig;
import io.fabricd.diagnosis.inventory.Inventory;
import io.fabricd.diagnosis.run.Diagnosis;
import io.fabricd.diagnosis.run.Report;
import io.fabricd.exporters.Exposition;
import io.fabricd.exporters.FabricMetrics;
import io.fabricd.exporters.PlacementMetrics;
import io.fabricd.model.HostModel;
import io.fabricd.model.probe.ProbeResults;
import io.fabricd.model.topology.Placement;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code fabricd metrics}: one collection, Prometheus text to stdout. */
@Command(name = "metrics", mixinStandardHelpOptions = true,
        description = "Collect the host once and print its metrics in Prometheus text format.")
public final class MetricsCommand implements Callable<Integer> {
    @Mixin
    HostOptions host;

    @Override
    public Integer call() {
        AgentConfig cfg = host.config();
        HostModel m = host.collectOnce(cfg, host.err());
        Inventory judged = host.storedInventory(cfg, m, host.err());
        Optional<Placement> where = host.placement(cfg, m);
        Report r = Diagnosis.run(m, null, judged, ProbeResults.NONE, where.orElse(null), cfg.diagnosis());
        List<MetricSnapshot> families = new ArrayList<>(FabricMetrics.build(m, cfg.netdev().allStats(), r.findings(), r.notJudged(),
                judged).stream().toList());
        families.addAll(PlacementMetrics.snapshots(where).stream().toList());
        byte[] body = Exposition.render(new MetricSnapshots(families), null).body();
        host.out().print(new String(body, StandardCharsets.UTF_8));
        host.out().flush();
        return 0;
    }
}
